#pragma once
// Runs a TaskGraph on the SimGrid platform, creating each activity just in time when it may start
// (never SimGrid's add_successor DAG API, which is quadratic). Comm ops are lowered to flows
// (sim/op_lowering.h) when their first member becomes ready and dropped when they end, and compute
// durations are asked of PlanCosts when a task becomes ready: the executor's memory is a few bytes
// per task plus the ops in flight. Call only inside the child process.
#include "engine/graph/task_graph.h"
#include "sim/child_channel.h"
#include "sim/op_lowering.h"
#include "sim/platform_spec.h"

namespace hcpsim::sim {

// How compute tasks are simulated. Both give processor sharing of a GPU between overlapping
// kernels (n kernels each run at 1/n).
enum class ComputeMode {
  Exec,    // one SimGrid Exec per kernel on the rank's host (SimGrid shares the host)
  Timer,   // our own per-GPU processor sharing, woken by SimGrid kernel timers: no activity per
           // kernel, so SimGrid's O(live activities) bookkeeping only sees the flows (faster)
};

// Simulates and streams one event record per task (ready time, end time), progress records about
// every 0.5 s of wall time, then either a `done` record (all tasks finished) or an error record:
// bad input (a negative cost, a malformed op; marked as such) or the stuck tasks (cycle, lost
// completion, an exception inside a callback).
void execute_graph(const TaskGraph& g, const PlanCosts& costs, const PlatformSpec& spec, RecordWriter& out,
                   ComputeMode mode = ComputeMode::Timer);

}  // namespace hcpsim::sim
