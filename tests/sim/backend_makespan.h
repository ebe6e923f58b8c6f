#pragma once
// The makespan of a task graph run by a backend (analytic or SimGrid) on a scenario's cluster: the
// latest task end, for tests that compare the two backends on one graph.
#include <algorithm>

#include "engine/backend/backend.h"
#include "engine/cost/cost_model.h"
#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"
#include "engine/trace/trace.h"

namespace hcpsim::sim::testing {

inline double makespan(Backend& b, const TaskGraph& g, const Scenario& s) {
  const RankLayout layout = RankLayout::from_scenario(s);
  const CostModel cost(s);
  RunContext ctx{s, layout, cost, {}};
  TraceCollector sink;
  b.run(g, ctx, sink);
  double end = 0;
  for (const auto& e : sink.trace.events) end = std::max(end, e.end_s);
  return end;
}

}  // namespace hcpsim::sim::testing
