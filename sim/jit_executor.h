#pragma once
// Runs a FlowPlan on the SimGrid platform, creating each activity just in time when it may start
// (never SimGrid's add_successor DAG API, which is quadratic). Call only inside the child process.
#include "engine/graph/task_graph.h"
#include "sim/child_channel.h"
#include "sim/flow_plan.h"
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
// every 0.5 s of wall time, then either a `done` record (all tasks finished) or an error record
// naming the stuck tasks (cycle, lost completion, an exception inside a callback).
void execute_plan(const TaskGraph& g, const FlowPlan& plan, const PlatformSpec& spec, RecordWriter& out,
                  ComputeMode mode = ComputeMode::Timer);

}  // namespace hcpsim::sim
