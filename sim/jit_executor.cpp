#include "sim/jit_executor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/kernel/Timer.hpp>

#include "engine/analytic/processor_sharing_gpu.h"
#include "sim/platform.h"

namespace hcpsim::sim {

namespace sg4 = simgrid::s4u;

namespace {

// Activities carry a tag in their user data, never null: a flow is (op << 32) | (flow << 1) | 1,
// an Exec ((task + 1) << 1).
void* exec_tag(TaskId t) { return reinterpret_cast<void*>((static_cast<std::uintptr_t>(t) + 1) << 1); }
void* flow_tag(std::uint32_t op, std::uint32_t flow) {
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
           ComputeMode mode)
      : g_(g), costs_(costs), hosts_(hosts), out_(out), mode_(mode) {
    if (mode_ == ComputeMode::Timer) gpus_.resize(hosts.size());
    else live_exec_.resize(g.size());   // Timer mode creates no Exec
    ready_s_.assign(g.size(), -1.0);
    state_.assign(g.size(), 0);
    ops_.resize(g.comms().size());
    preds_left_ = g.in_degrees();
  }

  void start_roots() {
    for (TaskId t = 0; t < g_.size(); ++t)
      if (preds_left_[t] == 0) ready_.push_back(t);
    drain(0.0);
  }

  // Called for every finished activity (noexcept: an exception inside SimGrid would crash it).
  void on_completion(const sg4::Activity& a) noexcept {
    guarded([&] {
      if (graveyard_.size() >= 256) graveyard_.clear();   // references of earlier completions
      const auto tag = reinterpret_cast<std::uintptr_t>(a.get_data<void>());
      if (tag == 0) return;
      const double now = a.get_finish_time();
      if ((tag & 1u) != 0) {
        const auto op = static_cast<std::uint32_t>(tag >> 32);
        const auto f = static_cast<std::uint32_t>((tag & 0xffffffffu) >> 1);
        graveyard_.push_back(std::move(live_[ops_[op].live].comms[f]));
        flow_done(op, f, now);
      } else {
        const auto t = static_cast<TaskId>((tag >> 1) - 1);
        graveyard_.push_back(std::move(live_exec_[t]));
        complete(t, now);
      }
      drain(now);
    });
  }

  void finish() {
    graveyard_.clear();
    if (!error_.empty()) {
      out_.error(error_invalid_input_ ? error_ : "simgrid: " + error_, error_invalid_input_);
      return;
    }
    if (completed_ != g_.size()) {
      out_.error(stuck_report());
      return;
    }
    out_.done(completed_, makespan_, flows_lowered_);
  }

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

  void keep_error(const char* what, bool invalid_input) noexcept {
    if (!error_.empty()) return;
    try {
      error_ = what;
      error_invalid_input_ = invalid_input;
    } catch (...) {
    }
  }

  // Starts the tasks made ready, then re-arms the GPUs whose kernels or loads changed (once each).
  void drain(double now) {
    while (!ready_.empty()) {
      const TaskId t = ready_.back();
      ready_.pop_back();
      become_ready(t, now);
    }
    for (std::uint32_t rank : to_arm_) {
      gpus_[rank].arm_pending = false;
      rearm(rank, now);
    }
    to_arm_.clear();
  }

  void become_ready(TaskId t, double now) {
    ready_s_[t] = now;
    const Task& task = g_.task(t);
    if (!is_communication(task.kind)) {
      const double s = compute_seconds(g_, t, costs_);
      if (s <= 0) return complete(t, now);
      if (mode_ == ComputeMode::Timer) {
        gpus_[static_cast<std::size_t>(task.rank)].ps.start(now, s, t);
        return arm(static_cast<std::uint32_t>(task.rank), now);
      }
      auto e = sg4::Exec::init();
      e->set_flops_amount(s * kHostSpeed);
      e->set_host(hosts_[static_cast<std::size_t>(task.rank)]);
      e->set_data(exec_tag(t));
      e->start();
      live_exec_[t] = std::move(e);
      return;
    }
    state_[t] |= kComm;
    const std::uint32_t op = task.comm;
    add_comm_load(t, +1, now);
    OpState& st = ops_[op];
    ++st.members_ready;
    if (task.kind == TaskKind::SendRecv) {
      if (st.live == kNone) activate(op);
      LiveOp& lo = live_[st.live];
      const std::uint32_t m = lo.plan.member_of(t);
      for (std::uint32_t k = lo.plan.gate_begin[m]; k < lo.plan.gate_begin[m + 1]; ++k)
        open_gate(op, lo, lo.plan.member_gates[k], now);
      if (lo.plan.member_flows[m] == 0) finish_comm(t, now);
      return release_if_over(op);
    }
    if (st.members_ready != g_.comms()[op].tasks.size()) return;
    activate(op);
    LiveOp& lo = live_[st.live];
    if (lo.plan.flows.empty()) {
      complete_op(op, now);
      return release_if_over(op);
    }
    for (std::uint32_t f = 0; f < lo.plan.initial; ++f) open_gate(op, lo, f, now);
  }

  // Lowers op into a free LiveOp slot.
  void activate(std::uint32_t op) {
    std::uint32_t slot;
    if (!free_live_.empty()) {
      slot = free_live_.back();
      free_live_.pop_back();
    } else {
      slot = static_cast<std::uint32_t>(live_.size());
      live_.emplace_back();
    }
    LiveOp& lo = live_[slot];
    lower_comm_op(g_, op, costs_, lo.plan);   // into the slot's vectors: no allocation once warm
    lo.comms.resize(lo.plan.flows.size());
    flows_lowered_ += lo.plan.flows.size();
    ops_[op].live = slot;
    ops_[op].flows_left = static_cast<std::uint32_t>(lo.plan.flows.size());
  }

  // Frees the op's lowering once every member is ready and every flow has ended.
  void release_if_over(std::uint32_t op) {
    OpState& st = ops_[op];
    if (st.live == kNone || st.flows_left != 0 || st.members_ready != g_.comms()[op].tasks.size()) return;
    // The slot keeps its vectors' capacity for the next op (its comms were all moved out).
    live_[st.live].comms.clear();
    free_live_.push_back(st.live);
    st.live = kNone;
  }

  void complete_op(std::uint32_t op, double now) {
    // A pipelined ring's latency (OpFlows::tail_s) delays its members' end like a host overhead.
    const std::uint32_t live = ops_[op].live;
    const double tail_s = live != kNone ? live_[live].plan.tail_s : 0.0;
    for (TaskId m : g_.comms()[op].tasks) finish_comm(m, now, tail_s);
  }

  // The flows of communication task `t` are over: it ends now, or after `extra_s` plus its host
  // overhead (a SimGrid timer, as the analytic backend's delayed completion).
  // Tasks due at the same instant as the last timer set for such tasks (and not yet fired) join
  // that timer (the members of an op usually end together): one SimGrid timer for them, which ends
  // them in the order they were added, each followed by drain() as with a timer of its own.
  void finish_comm(TaskId t, double now, double extra_s = 0.0) {
    const double over = extra_s + (costs_.comm_overhead_s ? costs_.comm_overhead_s(g_.task(t)) : 0.0);
    if (!(over > 0)) return complete(t, now);
    at_instant(delayed_, now + over, t);
  }

  void on_delay_timer(std::uint32_t slot) noexcept {
    guarded([&] {
      const double at = sg4::Engine::get_clock();
      delayed_.fired(slot);
      for (std::size_t i = 0; i < delayed_.slots[slot].size(); ++i) {   // by index: the pool may grow
        complete(delayed_.slots[slot][i], at);
        drain(at);
      }
      delayed_.release(slot);
    });
  }

  // Adds `item` to the pool's pending timer for instant `at`, or starts a SimGrid timer for it.
  template <class Item>
  void at_instant(InstantTimers<Item>& pool, double at, const Item& item) {
    if (pool.last != kNone && at == pool.last_at) {
      pool.slots[pool.last].push_back(item);
      return;
    }
    std::uint32_t slot;
    if (!pool.free.empty()) {
      slot = pool.free.back();
      pool.free.pop_back();
    } else {
      slot = static_cast<std::uint32_t>(pool.slots.size());
      pool.slots.emplace_back();
    }
    pool.slots[slot].push_back(item);
    pool.last = slot;
    pool.last_at = at;
    if constexpr (std::is_same_v<Item, TaskId>)
      simgrid::kernel::timer::Timer::set(at, [this, slot] { on_delay_timer(slot); });
    else
      simgrid::kernel::timer::Timer::set(at, [this, slot] { on_gpu_timers(slot); });
  }

  // Timer mode: a communication task starts (+1) or ends (-1) on its GPU, changing the share the
  // GPU's compute kernels get (same rule as the analytic backend).
  void add_comm_load(TaskId t, int sign, double now) {
    if (mode_ != ComputeMode::Timer || !costs_.comm_load) return;
    const Task& task = g_.task(t);
    const auto rank = static_cast<std::uint32_t>(task.rank);
    SharedGpu& gpu = gpus_[rank];
    if (sign > 0) {
      const double load = costs_.comm_load(task);
      if (!(load > 0)) return;
      gpu.comm_tasks.emplace_back(t, load);
      gpu.comm_load += load;
    } else {
      auto it = std::find_if(gpu.comm_tasks.begin(), gpu.comm_tasks.end(), [t](const auto& e) { return e.first == t; });
      if (it == gpu.comm_tasks.end()) return;   // its load was 0
      const double load = it->second;
      *it = gpu.comm_tasks.back();
      gpu.comm_tasks.pop_back();
      gpu.comm_load = gpu.comm_tasks.empty() ? 0.0 : gpu.comm_load - load;
    }
    gpu.ps.set_comm_load(now, gpu.comm_load);
    arm(rank, now);
  }

  // The GPU's next kernel end may have moved: its timer is reset by the next drain(), once however
  // many changes the current event makes (a completion, say, ends a NCCL task and starts a kernel).
  void arm(std::uint32_t rank, double) {
    SharedGpu& gpu = gpus_[rank];
    if (gpu.arm_pending) return;
    gpu.arm_pending = true;
    to_arm_.push_back(rank);
  }

  // (Re)sets the GPU's single timer to the end of its next kernel.
  void rearm(std::uint32_t rank, double now) {
    SharedGpu& gpu = gpus_[rank];
    ++gpu.timer_gen;   // its pending entry, if any, no longer counts
    if (!gpu.ps.busy()) return;
    at_instant(gpu_timers_, gpu.ps.next_end_s(now), GpuTimerEntry{rank, gpu.timer_gen});
  }

  // GPU timers share one SimGrid timer per instant as the delayed ends do (at_instant): GPUs of
  // the same schedule often end kernels together. Woken in the order they joined; an entry whose
  // GPU was re-armed since is skipped.
  void on_gpu_timers(std::uint32_t slot) noexcept {
    guarded([&] {
      const double now = sg4::Engine::get_clock();
      gpu_timers_.fired(slot);
      for (std::size_t i = 0; i < gpu_timers_.slots[slot].size(); ++i) {   // by index: the pool may grow
        const GpuTimerEntry e = gpu_timers_.slots[slot][i];
        SharedGpu& gpu = gpus_[e.rank];
        if (gpu.timer_gen != e.gen) continue;
        finished_.clear();
        gpu.ps.pop_ended(now, finished_);
        arm(e.rank, now);
        for (TaskId t : finished_) complete(t, now);
        drain(now);
      }
      gpu_timers_.release(slot);
    });
  }

  void open_gate(std::uint32_t op, LiveOp& lo, std::uint32_t f, double) {
    OpFlow& fl = lo.plan.flows[f];
    if (--fl.gate != 0) return;
    const auto payload = static_cast<std::uint64_t>(std::llround(fl.wire_bytes * kByteScale));
    auto c = sg4::Comm::sendto_init();
    c->set_data(flow_tag(op, f));
    c->set_source(hosts_[static_cast<std::size_t>(fl.src)]);
    c->set_destination(hosts_[static_cast<std::size_t>(fl.dst)]);
    c->set_payload_size(payload);
    c->start();
    lo.comms[f] = std::move(c);
  }

  void flow_done(std::uint32_t op, std::uint32_t f, double now) {
    OpState& st = ops_[op];
    LiveOp& lo = live_[st.live];
    const OpFlow& fl = lo.plan.flows[f];
    --st.flows_left;
    if (lo.plan.collective()) {
      std::uint32_t next[2];
      const std::uint32_t n = lo.plan.ring_next(f, next);
      for (std::uint32_t k = 0; k < n; ++k) open_gate(op, lo, next[k], now);
      if (st.flows_left == 0) complete_op(op, now);
    } else {
      const auto& members = g_.comms()[op].tasks;
      if (--lo.plan.member_flows[fl.src_member] == 0) finish_comm(members[fl.src_member], now);
      if (fl.dst_member != fl.src_member && --lo.plan.member_flows[fl.dst_member] == 0) finish_comm(members[fl.dst_member], now);
    }
    release_if_over(op);
  }

  void complete(TaskId t, double now) {
    std::uint8_t& state = state_[t];
    if ((state & kDone) != 0) {
      if (error_.empty()) error_ = "task " + std::to_string(t) + " completed twice (internal error)";
      return;
    }
    state |= kDone;
    ++completed_;
    if ((state & kComm) != 0) add_comm_load(t, -1, now);   // (a compute task's record is not read again)
    if (now > makespan_) makespan_ = now;
    out_.event(t, ready_s_[t], now);
    const auto& adj = g_.adjacency();
    for (auto [it, end] = boost::out_edges(t, adj); it != end; ++it) {
      const auto s = static_cast<TaskId>(boost::target(*it, adj));
      if (--preds_left_[s] == 0) ready_.push_back(s);
    }
    if ((completed_ & 8191u) == 0) report_progress(now);
  }

  void report_progress(double now) {
    const auto wall = std::chrono::steady_clock::now();
    if (wall - last_progress_ < std::chrono::milliseconds(500)) return;
    last_progress_ = wall;
    out_.progress(completed_, g_.size(), now);
  }

  std::string why_stuck(TaskId t) const {
    const Task& task = g_.task(t);
    if (ready_s_[t] < 0) return "waits for " + std::to_string(preds_left_[t]) + " unfinished predecessors";
    if (!is_communication(task.kind)) return "compute started but never completed";
    const OpState& st = ops_[task.comm];
    const std::size_t members = g_.comms()[task.comm].tasks.size();
    if (task.kind == TaskKind::SendRecv) {
      const std::uint32_t left = st.live == kNone ? 0 : live_[st.live].plan.member_flows[live_[st.live].plan.member_of(t)];
      return "ready, " + std::to_string(left) + " transfers never finished (peer not ready?)";
    }
    if (st.members_ready < members)
      return "ready, waits for " + std::to_string(members - st.members_ready) + " members of its " + to_string(task.kind);
    return "collective started, " + std::to_string(st.flows_left) + " flows never finished";
  }

  std::string stuck_report() const {
    std::string s = "simgrid: the task graph cannot finish: " + std::to_string(completed_) + " of " +
                    std::to_string(g_.size()) + " tasks completed; stuck tasks (first 8):";
    int shown = 0;
    for (TaskId t = 0; t < g_.size() && shown < 8; ++t) {
      if ((state_[t] & kDone) != 0) continue;
      const Task& task = g_.task(t);
      s += "\n  task " + std::to_string(t) + " rank " + std::to_string(task.rank) + " " + g_.display_name(task) + ": " +
           why_stuck(t);
      ++shown;
    }
    return s;
  }

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

}  // namespace

void execute_graph(const TaskGraph& g, const PlanCosts& costs, const PlatformSpec& spec, RecordWriter& out,
                   ComputeMode mode) {
  if (!costs.compute_s || !costs.link_efficiency) throw std::invalid_argument("PlanCosts: both cost functions are required");
  auto engine = make_engine();
  const auto hosts = build_platform(spec);
  Executor ex(g, costs, hosts, out, mode);
  sg4::Activity::on_completion_cb([&ex](const sg4::Activity& a) { ex.on_completion(a); });
  ex.start_roots();
  engine->run();
  ex.finish();
}

}  // namespace hcpsim::sim
