#pragma once
// Preconditions of build_step_graph and the size estimate it checks against its limit.
#include <cstddef>

#include "engine/layout/rank_layout.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::step {

// Throws std::invalid_argument ("build_step_graph: ...") when `s` cannot be built as one step graph
// on `layout`: prefill, sizes that do not divide, a layout of another scenario, parameter sharding,
// or a task estimate (step_graph_task_estimate) above `max_tasks`.
void check_step_graph(const Scenario& s, const RankLayout& layout, std::size_t max_tasks);

}  // namespace hcpsim::step
