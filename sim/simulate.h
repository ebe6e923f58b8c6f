#pragma once
// simulate_in_child: the CostModel-free core of the simgrid backend. Checks the graph's ranks and
// comm ops here, then forks a child that builds the platform and runs the JIT executor (which lowers
// ops and asks for compute costs as tasks become ready), and feeds the streamed events to `on_event`.
// Nothing in proportion to the graph is allocated in this process.
#include <functional>

#include "engine/backend/backend.h"
#include "engine/graph/task_graph.h"
#include "sim/op_lowering.h"
#include "sim/jit_executor.h"
#include "sim/platform_spec.h"

namespace hcpsim::sim {

struct SimRunResult {
  double makespan_s = 0;      // simulated end of the last task
  std::size_t completed = 0;  // == g.size() on success
  std::size_t flows = 0;      // point-to-point flows the comm ops were lowered to
};

// Throws std::invalid_argument for bad input (costs, faults, ranks, malformed ops; also when the
// child finds a negative cost or an efficiency outside (0, 1]), std::runtime_error naming the
// stuck tasks when the graph cannot finish, or describing a crashed child. `progress` may be empty.
SimRunResult simulate_in_child(const TaskGraph& g, const PlanCosts& costs, const PlatformSpec& spec,
                               const std::function<void(TaskId, double start_s, double end_s)>& on_event,
                               const ProgressFn& progress, ComputeMode mode = ComputeMode::Timer);

}  // namespace hcpsim::sim
