#include "engine/report/simulate.h"

#include "engine/memory/memory_model.h"
#include "engine/memory/memory_report.h"

#include <algorithm>
#include <chrono>

#include "engine/schedule/build.h"

namespace hcpsim {
namespace {

struct KeepSink : TraceSink {
  std::vector<TraceEvent> kept;
  void record(const TraceEvent& e) override { kept.push_back(e); }
};

}  // namespace

SimulationResult simulate_scenario(const Scenario& s, Backend& backend, const SimulateOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const RankLayout layout = RankLayout::from_scenario(s);
  const TaskGraph g = build_task_graph(s, layout, graph_options_from(s));
  const CostModel cost(s);
  RunContext ctx{s, layout, cost, options.progress};
  KeepSink sink;
  sink.kept.reserve(g.size());
  backend.run(g, ctx, sink);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  SimulationResult r;
  r.tasks = g.size();
  r.trace.scenario = s.display_name();
  r.trace.configuration = s.configuration();
  r.trace.overrides = s.overrides;
  r.trace.backend = backend.name();
  r.trace.world_size = s.world_size();
  r.trace.gpus_per_node = s.cluster.gpus_per_node;
  r.trace.events = std::move(sink.kept);
  // Events in task order make reports and trace files independent of completion order.
  std::sort(r.trace.events.begin(), r.trace.events.end(),
            [](const TraceEvent& a, const TraceEvent& b) { return a.task < b.task; });
  ReportOptions ro;
  ro.num_layers = s.model.num_layers;
  ro.wall_s = wall;
  r.report = compute_report(r.trace, ro);
  r.report.configuration = r.trace.configuration;
  r.report.overrides = r.trace.overrides;
  r.report.tasks = g.size();
  r.report.memory = to_memory_report(estimate_memory(s));   // per-GPU memory, flagged when it does not fit
  if (!options.keep_events) r.trace.events.clear();
  return r;
}

}  // namespace hcpsim
