#pragma once
// The costs the SimGrid executor asks for (PlanCosts, sim/op_lowering.h), answered by the run's
// CostModel exactly as the analytic backend prices the same tasks and flows: compute seconds and
// compute loads through a TaskCostMemo, link efficiencies, NCCL send/recv channel caps, pipelined
// rings and rail speed-ups on the scenario's routes (RouteModel). The functions keep small memos
// of their last answers; they are for one run in one thread (the SimGrid child process).
#include "engine/backend/backend.h"
#include "engine/graph/task_graph.h"
#include "sim/op_lowering.h"

namespace hcpsim::sim {

// `ctx` and `g` must outlive the returned functions.
PlanCosts backend_plan_costs(const RunContext& ctx, const TaskGraph& g);

}  // namespace hcpsim::sim
