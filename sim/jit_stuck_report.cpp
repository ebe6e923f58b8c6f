// The JIT executor's progress records, and what it reports when the graph cannot finish: the first
// stuck tasks and what each waits for.
#include <chrono>
#include <string>

#include "sim/jit_executor_impl.h"

namespace hcpsim::sim::jit {

void Executor::report_progress(double now) {
  const auto wall = std::chrono::steady_clock::now();
  if (wall - last_progress_ < std::chrono::milliseconds(500)) return;
  last_progress_ = wall;
  out_.progress(completed_, g_.size(), now);
}

std::string Executor::why_stuck(TaskId t) const {
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

std::string Executor::stuck_report() const {
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

}  // namespace hcpsim::sim::jit
