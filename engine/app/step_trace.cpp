#include "engine/app/step_trace.h"

#include <stdexcept>
#include <vector>

#include "engine/app/backend_catalog.h"
#include "engine/cost/cost_model.h"
#include "engine/layout/rank_layout.h"
#include "engine/step/step_graph.h"

namespace hcpsim::app {
namespace {

// Keeps the events of the chosen ranks (the full event is built only for them).
class RankFilterSink : public TraceSink {
 public:
  explicit RankFilterSink(std::vector<char> keep) : keep_(std::move(keep)) {}
  void record(const TraceEvent& e) override { trace.events.push_back(e); }
  void record_task(const TaskGraph& g, const Task& t, double start_s, double end_s) override {
    if (keep_[static_cast<std::size_t>(t.rank)]) record(make_event(g, t, start_s, end_s));
  }
  Trace trace;

 private:
  std::vector<char> keep_;
};

}  // namespace

Trace predict_step_trace(const Scenario& s, const std::string& backend, const StepTraceOptions& options) {
  const std::string name = backend.empty() ? s.simulation.backend : backend;
  const std::unique_ptr<Backend> b = create_backend(name);
  if (!b->capabilities().predicts_time)
    throw std::invalid_argument("backend '" + name + "' does not predict time (use hcpsim verify)");
  const RankLayout layout = RankLayout::from_scenario(s);
  const TaskGraph g = step::build_step_graph(s, layout, step::StepGraphOptions{.max_tasks = options.max_tasks});
  std::vector<char> keep(static_cast<std::size_t>(layout.world_size()), 1);
  if (options.fold_replicas)
    for (int r = 0; r < layout.world_size(); ++r) {
      const RankCoord c = layout.coord(r);
      keep[static_cast<std::size_t>(r)] = c.dp == 0 && c.tp == 0;
    }
  RankFilterSink sink(std::move(keep));
  const CostModel cost(s);
  b->run(g, RunContext{s, layout, cost, {}}, sink);
  Trace t = std::move(sink.trace);
  t.scenario = s.display_name();
  t.configuration = s.configuration();
  t.overrides = s.overrides;
  t.backend = b->name();
  t.world_size = layout.world_size();
  t.gpus_per_node = layout.gpus_per_node();
  return t;
}

}  // namespace hcpsim::app
