#include "engine/app/measure.h"

#include <chrono>

#include "engine/schedule/build.h"

namespace hcpsim::app {

Measurement measure(const Scenario& s, const GraphRunner& runner, const MeasureOptions& options) {
  const RankLayout layout = RankLayout::from_scenario(s);
  GraphOptions go = graph_options_from(s);
  go.with_payloads = options.with_payloads;
  if (options.with_payloads) go.whole_layer = false;   // GEMMs and TP collectives carry no payloads
  const TaskGraph g = build_task_graph(s, layout, go);
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<Trace> trace = runner(g, layout);
  Measurement m;
  if (!trace) {
    m.reporting_rank = false;
    return m;
  }
  m.trace = std::move(*trace);
  if (m.trace.scenario.empty()) m.trace.scenario = s.name;
  ReportOptions o;
  o.num_layers = s.model.num_layers;
  o.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m.report = compute_report(m.trace, o);
  m.report.measured = true;
  return m;
}

}  // namespace hcpsim::app
