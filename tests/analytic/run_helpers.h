#pragma once
// Runs the analytic backend on a graph and indexes the events by task id.
#include <vector>

#include "engine/analytic/analytic_backend.h"
#include "engine/layout/rank_layout.h"

namespace hcpsim::test {

struct RunResult {
  Trace trace;
  std::vector<TraceEvent> by_task;   // indexed by task id
  double makespan_s = 0;
};

inline RunResult run_analytic(const TaskGraph& g, const Scenario& s) {
  const CostModel cost(s);
  LayoutParams p;
  p.world_size = s.world_size();
  p.gpus_per_node = s.cluster.gpus_per_node;
  p.cp = s.world_size();
  const RankLayout layout = RankLayout::build(p);
  RunContext ctx{s, layout, cost, {}};
  TraceCollector sink;
  AnalyticBackend().run(g, ctx, sink);
  RunResult r;
  r.trace = sink.trace;
  r.by_task.resize(g.size());
  for (const auto& e : r.trace.events) {
    r.by_task.at(e.task) = e;
    r.makespan_s = std::max(r.makespan_s, e.end_s);
  }
  return r;
}

}  // namespace hcpsim::test
