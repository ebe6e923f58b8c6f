#include "sim/jit_executor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/kernel/Timer.hpp>

#include "sim/platform.h"

namespace hcpsim::sim {

namespace sg4 = simgrid::s4u;

namespace {

// Activities carry a tag in their user data: (index << 1) | is_flow, plus 1 so it is never null.
void* make_tag(std::uint32_t index, bool flow) {
  return reinterpret_cast<void*>((static_cast<std::uintptr_t>(index) << 1 | (flow ? 1u : 0u)) + 1);
}

// One GPU under processor sharing in virtual time (the analytic backend's model): with n kernels
// active, virtual time advances at 1/n per second; a kernel ends when it reaches start + work.
struct SharedGpu {
  double vtime = 0;
  double updated_s = 0;
  std::vector<std::pair<double, TaskId>> heap;   // min-heap on finishing virtual time
  simgrid::kernel::timer::Timer* timer = nullptr;
  void advance(double now) {
    if (!heap.empty()) vtime += (now - updated_s) / static_cast<double>(heap.size());
    updated_s = now;
  }
};

struct HeapLater {
  bool operator()(const std::pair<double, TaskId>& x, const std::pair<double, TaskId>& y) const {
    return x.first != y.first ? x.first > y.first : x.second > y.second;
  }
};

class Executor {
 public:
  Executor(const TaskGraph& g, const FlowPlan& p, const std::vector<sg4::Host*>& hosts, RecordWriter& out,
           ComputeMode mode)
      : g_(g), p_(p), hosts_(hosts), out_(out), mode_(mode) {
    if (mode_ == ComputeMode::Timer) gpus_.resize(hosts.size());
    const std::size_t n = g.size();
    preds_left_.resize(n);
    flows_left_ = p.flow_count;
    ready_s_.assign(n, -1.0);
    done_.assign(n, false);
    gate_left_.resize(p.flows.size());
    for (std::size_t f = 0; f < p.flows.size(); ++f) gate_left_[f] = p.flows[f].gate;
    members_left_ = p.op_members;
    op_flows_left_ = p.op_flows;
    if (mode_ == ComputeMode::Exec) live_exec_.resize(n);   // Timer mode creates no Exec
    live_comm_.resize(p.flows.size());
    preds_left_ = g.in_degrees();
  }

  void start_roots() {
    for (TaskId t = 0; t < g_.size(); ++t)
      if (preds_left_[t] == 0) ready_.push_back(t);
    drain(0.0);
  }

  // Called for every finished activity (noexcept: an exception inside SimGrid would crash it).
  void on_completion(const sg4::Activity& a) noexcept {
    try {
      if (graveyard_.size() >= 256) graveyard_.clear();   // references of earlier completions
      const auto tag = reinterpret_cast<std::uintptr_t>(a.get_data<void>());
      if (tag == 0) return;
      const auto index = static_cast<std::uint32_t>((tag - 1) >> 1);
      const bool is_flow = ((tag - 1) & 1u) != 0;
      const double now = a.get_finish_time();
      if (is_flow) {
        graveyard_.push_back(std::move(live_comm_[index]));
        flow_done(index, now);
      } else {
        graveyard_.push_back(std::move(live_exec_[index]));
        complete(index, now);
      }
      drain(now);
    } catch (const std::exception& e) {
      if (error_.empty()) error_ = e.what();
    } catch (...) {
      if (error_.empty()) error_ = "unknown exception in a completion callback";
    }
  }

  void finish() {
    graveyard_.clear();
    if (!error_.empty()) {
      out_.error("simgrid: " + error_);
      return;
    }
    if (completed_ != g_.size()) {
      out_.error(stuck_report());
      return;
    }
    out_.done(completed_, makespan_);
  }

 private:
  void drain(double now) {
    while (!ready_.empty()) {
      const TaskId t = ready_.back();
      ready_.pop_back();
      become_ready(t, now);
    }
  }

  void become_ready(TaskId t, double now) {
    ready_s_[t] = now;
    const Task& task = g_.task(t);
    if (!is_communication(task.kind)) {
      const double s = p_.compute_s[t];
      if (s <= 0) return complete(t, now);
      if (mode_ == ComputeMode::Timer) {
        SharedGpu& gpu = gpus_[static_cast<std::size_t>(task.rank)];
        gpu.advance(now);
        gpu.heap.emplace_back(gpu.vtime + s, t);
        std::push_heap(gpu.heap.begin(), gpu.heap.end(), HeapLater{});
        return arm(static_cast<std::uint32_t>(task.rank), now);
      }
      auto e = sg4::Exec::init();
      e->set_flops_amount(s * kHostSpeed);
      e->set_host(hosts_[static_cast<std::size_t>(task.rank)]);
      e->set_data(make_tag(t, false));
      e->start();
      live_exec_[t] = std::move(e);
      return;
    }
    if (task.kind == TaskKind::SendRecv) {
      for (std::uint32_t k = p_.task_gates.begin[t]; k < p_.task_gates.begin[t + 1]; ++k)
        open_gate(p_.task_gates.items[k], now);
      if (flows_left_[t] == 0) complete(t, now);
      return;
    }
    const std::uint32_t op = task.comm;
    if (--members_left_[op] != 0) return;
    if (p_.op_flows[op] == 0) return complete_op(op, now);
    for (std::uint32_t k = p_.op_initial.begin[op]; k < p_.op_initial.begin[op + 1]; ++k)
      open_gate(p_.op_initial.items[k], now);
  }

  void complete_op(std::uint32_t op, double now) {
    for (TaskId m : g_.comms()[op].tasks) complete(m, now);
  }

  // (Re)sets the GPU's single timer to the end of its next kernel.
  void arm(std::uint32_t rank, double now) {
    SharedGpu& gpu = gpus_[rank];
    if (gpu.timer != nullptr) {
      gpu.timer->remove();
      gpu.timer = nullptr;
    }
    if (gpu.heap.empty()) return;
    const double left_v = std::max(0.0, gpu.heap.front().first - gpu.vtime);
    const double at = now + left_v * static_cast<double>(gpu.heap.size());
    gpu.timer = simgrid::kernel::timer::Timer::set(at, [this, rank] { on_gpu_timer(rank); });
  }

  void on_gpu_timer(std::uint32_t rank) noexcept {
    try {
      SharedGpu& gpu = gpus_[rank];
      gpu.timer = nullptr;   // it fired; SimGrid frees it
      const double now = sg4::Engine::get_clock();
      gpu.advance(now);
      const double tol = 1e-12 * std::max(1.0, std::abs(gpu.vtime));
      std::vector<TaskId> finished;
      do {
        std::pop_heap(gpu.heap.begin(), gpu.heap.end(), HeapLater{});
        finished.push_back(gpu.heap.back().second);
        gpu.heap.pop_back();
      } while (!gpu.heap.empty() && gpu.heap.front().first <= gpu.vtime + tol);
      arm(rank, now);
      for (TaskId t : finished) complete(t, now);
      drain(now);
    } catch (const std::exception& e) {
      if (error_.empty()) error_ = e.what();
    } catch (...) {
      if (error_.empty()) error_ = "unknown exception in a GPU timer";
    }
  }

  void open_gate(std::uint32_t f, double now) {
    if (--gate_left_[f] != 0) return;
    const PlannedFlow& fl = p_.flows[f];
    const auto payload = static_cast<std::uint64_t>(std::llround(fl.wire_bytes * kByteScale));
    auto c = sg4::Comm::sendto_init();
    c->set_data(make_tag(f, true));
    c->set_source(hosts_[static_cast<std::size_t>(fl.src)]);
    c->set_destination(hosts_[static_cast<std::size_t>(fl.dst)]);
    c->set_payload_size(payload);
    c->start();
    live_comm_[f] = std::move(c);
  }

  void flow_done(std::uint32_t f, double now) {
    const PlannedFlow& fl = p_.flows[f];
    if (fl.op != kNone) {
      if (--op_flows_left_[fl.op] == 0) complete_op(fl.op, now);
    } else {
      if (--flows_left_[fl.src_task] == 0) complete(fl.src_task, now);
      if (fl.dst_task != fl.src_task && --flows_left_[fl.dst_task] == 0) complete(fl.dst_task, now);
    }
    for (std::uint32_t k = p_.flow_next.begin[f]; k < p_.flow_next.begin[f + 1]; ++k) open_gate(p_.flow_next.items[k], now);
  }

  void complete(TaskId t, double now) {
    if (done_[t]) {
      if (error_.empty()) error_ = "task " + std::to_string(t) + " completed twice (internal error)";
      return;
    }
    done_[t] = true;
    ++completed_;
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

  std::string stuck_report() const {
    std::string s = "simgrid: the task graph cannot finish: " + std::to_string(completed_) + " of " +
                    std::to_string(g_.size()) + " tasks completed; stuck tasks (first 8):";
    int shown = 0;
    for (TaskId t = 0; t < g_.size() && shown < 8; ++t) {
      if (done_[t]) continue;
      const Task& task = g_.task(t);
      std::string why;
      if (ready_s_[t] < 0) why = "waits for " + std::to_string(preds_left_[t]) + " unfinished predecessors";
      else if (task.kind != TaskKind::SendRecv && members_left_[task.comm] > 0)
        why = "ready, waits for " + std::to_string(members_left_[task.comm]) + " members of its " + to_string(task.kind);
      else if (task.kind == TaskKind::SendRecv)
        why = "ready, " + std::to_string(flows_left_[t]) + " transfers never finished (peer not ready?)";
      else if (is_communication(task.kind)) why = "collective started, " + std::to_string(op_flows_left_[task.comm]) + " flows never finished";
      else why = "compute started but never completed";
      s += "\n  task " + std::to_string(t) + " rank " + std::to_string(task.rank) + " " + g_.display_name(task) + ": " + why;
      ++shown;
    }
    return s;
  }

  const TaskGraph& g_;
  const FlowPlan& p_;
  const std::vector<sg4::Host*>& hosts_;
  RecordWriter& out_;
  ComputeMode mode_;
  std::vector<SharedGpu> gpus_;
  std::vector<std::uint32_t> preds_left_, flows_left_, gate_left_, members_left_, op_flows_left_;
  std::vector<double> ready_s_;
  std::vector<bool> done_;
  std::vector<sg4::ExecPtr> live_exec_;
  std::vector<sg4::CommPtr> live_comm_;
  std::vector<sg4::ActivityPtr> graveyard_;
  std::vector<TaskId> ready_;
  std::size_t completed_ = 0;
  double makespan_ = 0;
  std::string error_;
  std::chrono::steady_clock::time_point last_progress_ = std::chrono::steady_clock::now();
};

}  // namespace

void execute_plan(const TaskGraph& g, const FlowPlan& plan, const PlatformSpec& spec, RecordWriter& out,
                  ComputeMode mode) {
  auto engine = make_engine();
  const auto hosts = build_platform(spec);
  Executor ex(g, plan, hosts, out, mode);
  sg4::Activity::on_completion_cb([&ex](const sg4::Activity& a) { ex.on_completion(a); });
  ex.start_roots();
  engine->run();
  ex.finish();
}

}  // namespace hcpsim::sim
