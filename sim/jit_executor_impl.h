#pragma once
// The just-in-time executor behind execute_graph (jit_executor.h), private to sim/: its state and
// its parts. jit_executor.cpp holds the event loop (tasks made ready, started and completed) and the
// flows of communication ops; jit_timers.cpp the SimGrid timers (delayed ends of communication
// tasks, and in Timer mode the processor-shared GPUs and their kernel ends); jit_stuck_report.cpp
// the progress records and the report of a graph that cannot finish.
#include <chrono>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Exec.hpp>

#include "engine/analytic/processor_sharing_gpu.h"
#include "sim/jit_executor.h"

namespace hcpsim::sim::jit {

namespace sg4 = simgrid::s4u;

// Activities carry a tag in their user data, never null: a flow is (op << 32) | (flow << 1) | 1,
// an Exec ((task + 1) << 1).
inline void* exec_tag(TaskId t) { return reinterpret_cast<void*>((static_cast<std::uintptr_t>(t) + 1) << 1); }
inline void* flow_tag(std::uint32_t op, std::uint32_t flow) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(op) << 32 | static_cast<std::uintptr_t>(flow) << 1 | 1u);
}
static_assert(sizeof(std::uintptr_t) >= 8, "flow tags need 64-bit pointers");

// A GPU's kernels under processor sharing, woken at its next kernel end by a SimGrid kernel timer
// (shared with the GPUs whose next kernel ends at the same instant, see InstantTimers).
struct SharedGpu {
  ProcessorSharingGpu ps;
  std::uint32_t timer_gen = 0;     // bumped at each re-arm: an earlier pending entry is stale
  double comm_load = 0;            // sum of PlanCosts::comm_load of its running NCCL tasks
  // Its running NCCL tasks with a load > 0 and that load, asked once when the task starts and
  // subtracted when it ends (a few entries: searched in place).
  std::vector<std::pair<TaskId, double>> comm_tasks;
  bool arm_pending = false;        // listed in Executor::to_arm_
};

// Items waiting for SimGrid timers, one list per timer in flight (slots reused). `last` is the
// slot of the last timer set, while it has not fired: items due at its instant join it.
template <class Item>
struct InstantTimers {
  std::vector<std::vector<Item>> slots;
  std::vector<std::uint32_t> free;
  std::uint32_t last = kNone;
  double last_at = 0;
  void fired(std::uint32_t slot) {
    if (last == slot) last = kNone;
  }
  void release(std::uint32_t slot) {
    slots[slot].clear();
    free.push_back(slot);
  }
};

// A GPU waiting for a kernel end, valid while the GPU's timer_gen still equals gen.
struct GpuTimerEntry {
  std::uint32_t rank = 0;
  std::uint32_t gen = 0;
};

// Per comm op: members ready so far, the live lowering (index into live_) and its flows not ended.
struct OpState {
  std::uint32_t members_ready = 0;
  std::uint32_t live = kNone;
  std::uint32_t flows_left = 0;
};

// A comm op in flight: its flows and the SimGrid Comms started for them. Slots are reused (a
// stack of free ones), and so are their vectors: lowering an op allocates nothing once the slots are
// warm. Besides the time, this keeps the 32-byte OpFlow vectors of two-member send/recv ops out of
// the allocator's 32-byte size class, where SimGrid keeps a list node per live Comm.
struct LiveOp {
  OpFlows plan;
  std::vector<sg4::CommPtr> comms;
};

class Executor {
 public:
  Executor(const TaskGraph& g, const PlanCosts& costs, const std::vector<sg4::Host*>& hosts, RecordWriter& out,
           ComputeMode mode);

  void start_roots();

  // Called for every finished activity (noexcept: an exception inside SimGrid would crash it).
  void on_completion(const sg4::Activity& a) noexcept;

  void finish();

 private:
  // Runs f; an exception is kept for finish() (bad input marked so), never thrown into SimGrid.
  template <class F>
  void guarded(F&& f) noexcept {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      keep_error(e.what(), true);
    } catch (const std::exception& e) {
      keep_error(e.what(), false);
    } catch (...) {
      keep_error("unknown exception in a SimGrid callback", false);
    }
  }

  void keep_error(const char* what, bool invalid_input) noexcept;

  // Starts the tasks made ready, then re-arms the GPUs whose kernels or loads changed (once each).
  void drain(double now);

  void become_ready(TaskId t, double now);

  // Lowers op into a free LiveOp slot.
  void activate(std::uint32_t op);

  // Frees the op's lowering once every member is ready and every flow has ended.
  void release_if_over(std::uint32_t op);

  void complete_op(std::uint32_t op, double now);

  // The flows of communication task `t` are over: it ends now, or after `extra_s` plus its host
  // overhead (a SimGrid timer, as the analytic backend's delayed completion).
  // Tasks due at the same instant as the last timer set for such tasks (and not yet fired) join
  // that timer (the members of an op usually end together): one SimGrid timer for them, which ends
  // them in the order they were added, each followed by drain() as with a timer of its own.
  void finish_comm(TaskId t, double now, double extra_s = 0.0);

  void on_delay_timer(std::uint32_t slot) noexcept;

  // Adds `item` to the pool's pending timer for instant `at`, or starts a SimGrid timer for it.
  template <class Item>
  void at_instant(InstantTimers<Item>& pool, double at, const Item& item);

  // Timer mode: a communication task starts (+1) or ends (-1) on its GPU, changing the share the
  // GPU's compute kernels get (same rule as the analytic backend).
  void add_comm_load(TaskId t, int sign, double now);

  // The GPU's next kernel end may have moved: its timer is reset by the next drain(), once however
  // many changes the current event makes (a completion, say, ends a NCCL task and starts a kernel).
  void arm(std::uint32_t rank, double);

  // (Re)sets the GPU's single timer to the end of its next kernel.
  void rearm(std::uint32_t rank, double now);

  // GPU timers share one SimGrid timer per instant as the delayed ends do (at_instant): GPUs of
  // the same schedule often end kernels together. Woken in the order they joined; an entry whose
  // GPU was re-armed since is skipped.
  void on_gpu_timers(std::uint32_t slot) noexcept;

  void open_gate(std::uint32_t op, LiveOp& lo, std::uint32_t f, double);

  void flow_done(std::uint32_t op, std::uint32_t f, double now);

  void complete(TaskId t, double now);

  void report_progress(double now);

  std::string why_stuck(TaskId t) const;

  std::string stuck_report() const;

  const TaskGraph& g_;
  const PlanCosts& costs_;
  const std::vector<sg4::Host*>& hosts_;
  RecordWriter& out_;
  ComputeMode mode_;
  std::vector<SharedGpu> gpus_;
  std::vector<std::uint32_t> preds_left_;
  std::vector<double> ready_s_;
  // Per task: kDone once completed, kComm for a communication task (set when it becomes ready).
  static constexpr std::uint8_t kDone = 1, kComm = 2;
  std::vector<std::uint8_t> state_;
  std::vector<OpState> ops_;
  std::vector<LiveOp> live_;
  std::vector<std::uint32_t> free_live_;
  std::vector<sg4::ExecPtr> live_exec_;
  std::vector<sg4::ActivityPtr> graveyard_;
  std::vector<TaskId> ready_;
  std::vector<std::uint32_t> to_arm_;   // GPUs whose timer drain() resets
  std::vector<TaskId> finished_;        // kernels a GPU timer ended (reused)
  InstantTimers<TaskId> delayed_;             // communication tasks waiting for their host overhead
  InstantTimers<GpuTimerEntry> gpu_timers_;   // GPUs waiting for their next kernel end
  std::size_t completed_ = 0;
  std::uint64_t flows_lowered_ = 0;
  double makespan_ = 0;
  std::string error_;
  bool error_invalid_input_ = false;
  std::chrono::steady_clock::time_point last_progress_ = std::chrono::steady_clock::now();
};

}  // namespace hcpsim::sim::jit
