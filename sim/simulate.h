#pragma once
// simulate_in_child: the CostModel-free core of the simgrid backend. Lowers the graph (in this
// process, so cost errors are ordinary exceptions), then forks a child that builds the platform and
// runs the JIT executor, and feeds the streamed events to `on_event`.
#include <functional>

#include "engine/backend/backend.h"
#include "engine/graph/task_graph.h"
#include "sim/flow_plan.h"
#include "sim/jit_executor.h"
#include "sim/platform_spec.h"

namespace hcpsim::sim {

struct SimRunResult {
  double makespan_s = 0;      // simulated end of the last task
  std::size_t completed = 0;  // == g.size() on success
  std::size_t flows = 0;      // point-to-point flows after lowering
};

// Throws std::invalid_argument for bad input (costs, faults, ranks), std::runtime_error naming the
// stuck tasks when the graph cannot finish, or describing a crashed child. `progress` may be empty.
SimRunResult simulate_in_child(const TaskGraph& g, const PlanCosts& costs, const PlatformSpec& spec,
                               const std::function<void(TaskId, double start_s, double end_s)>& on_event,
                               const ProgressFn& progress, ComputeMode mode = ComputeMode::Timer);

}  // namespace hcpsim::sim
