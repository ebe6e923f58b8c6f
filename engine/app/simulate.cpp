#include "engine/app/simulate.h"

#include "engine/app/memory_report.h"
#include "engine/memory/memory_model.h"
#include "engine/scenario/pipeline_split.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

#include "engine/cost/efficiency_sources.h"
#include "engine/error_band/error_band.h"
#include "engine/app/trace_during_run.h"
#include "engine/fold/fold_plan.h"
#include "engine/fold/fold_report.h"
#include "engine/schedule/build.h"
#include "engine/step/step_model.h"
#include "engine/trace/graph_event_view.h"
#include "engine/trace/task_times.h"
#include "engine/trace/trace_output.h"
#include "engine/validate/feasibility.h"

namespace hcpsim {
step::LayerTimes layer_times_of(const Report& r) {
  step::LayerTimes lt;
  lt.whole_layer = r.whole_layer;
  lt.layer_forward_s = r.whole_layer ? r.layer_forward_s : r.attention_forward_s;
  lt.layer_backward_s = r.whole_layer ? r.layer_backward_s : r.attention_backward_s;
  lt.attention_forward_s = r.attention_forward_s;
  return lt;
}

FoldPlan plan_simulation(const Scenario& s, const SimulateOptions& options) {
  return plan_fold(s, options.replicas_once, options.unfold_reason);
}

SimulationResult simulate_scenario(const Scenario& s, Backend& backend, const SimulateOptions& options) {
  return simulate_planned(s, plan_simulation(s, options), backend, options);
}

SimulationResult simulate_planned(const Scenario& full, const FoldPlan& fold, Backend& backend,
                                  const SimulateOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  auto stage_t0 = t0;
  auto stage = [&](const char* name) {
    if (!options.stage_done) return;
    const auto now = std::chrono::steady_clock::now();
    options.stage_done(name, std::chrono::duration<double>(now - stage_t0).count());
    stage_t0 = now;
  };
  // Opened first: a file that cannot be written is refused before the run, not after it.
  const std::unique_ptr<TraceOutput> trace_out = options.trace_path.empty() ? nullptr : open_trace_output(options.trace_path);
  const Scenario& s = fold.simulated;
  if (!fold.folded)   // validation accepted the job by its folded graph: not enough when it runs whole
    require_buildable_graph(s, fold.enabled && !options.replicas_once && !options.unfold_reason.empty()
                                   ? options.unfold_reason + "; keep the run folded instead"
                                   : "simulate fewer layers (simulation.layers) or fewer GPUs");
  const RankLayout layout = RankLayout::from_scenario(s);
  const TaskGraph g = build_task_graph(s, layout, graph_options_from(s));
  stage("build graph");
  const CostModel cost(s);
  RunContext ctx{s, layout, cost, options.progress};
  SimulationResult r;
  r.tasks = g.size();
  r.trace.scenario = s.display_name();
  r.trace.configuration = full.configuration();   // the job's, also when one unit of it was simulated
  r.trace.overrides = s.overrides;
  r.trace.backend = backend.name();
  r.trace.world_size = s.world_size();
  r.trace.gpus_per_node = s.cluster.gpus_per_node;
  TaskTimesSink sink(g.size());
  // The trace file is written on a second thread as the task times come (engine/app/trace_during_run.h).
  std::optional<TraceDuringRun> trace_writer;
  if (trace_out) {
    TraceFileJob job{trace_out.get(), r.trace, options.trace_filter, &fold};
    if (fold.folded) job.header.world_size = fold.represented_ranks;   // the file shows the job
    trace_writer.emplace(g, sink, std::move(job));
  }
  backend.run(g, ctx, sink);
  sink.require_complete(backend.name());
  stage("run");
  if (trace_writer) trace_writer->run_finished(g.size());
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Events in task order make reports and trace files independent of completion order.
  const GraphEventView events(g, sink.times());
  ReportOptions ro;
  ro.num_layers = full.model.num_layers;
  ro.wall_s = wall;
  stage("event view");
  r.report = compute_report(events, r.trace, ro);
  stage("report");
  r.report.configuration = r.trace.configuration;
  r.report.overrides = r.trace.overrides;
  r.report.tasks = g.size();
  r.report.efficiency_sources = efficiency_sources(cost);
  apply_fold(r.report, fold);   // the job's GPU count, fold summary, sums over every replica
  r.report.memory = to_memory_report(estimate_memory(full));   // per-GPU memory, flagged when it does not fit
  const int m = full.micro_batches();
  if (options.compose_step && m > 0 && !pipeline_split_problem(full.model) &&
      (full.vpp() == 1 || m % full.pp() == 0 || full.train.mode == TrainMode::Prefill))
    r.report.step = step::compose_step(full, layer_times_of(r.report),
                                       {.link_sharing = backend.capabilities().models_contention});
  if (r.report.step) r.report.step->error_band = accuracy::error_band_for(full);
  stage("memory and step");
  if (trace_writer) {
    r.trace_file_events = trace_writer->finish();
    trace_out->close();
    stage("finish trace file");
  }
  if (options.keep_events) {
    r.trace.events.reserve(g.size());
    for (const Task& t : g.tasks()) {
      const TaskTimes& x = sink.times()[g.id_of(t)];
      r.trace.events.push_back(make_event(g, t, x.start_s, x.end_s));
    }
  }
  return r;
}

StepReport predict_step(const Scenario& s, Backend& backend, Report* layer_report) {
  SimulateOptions so;
  so.keep_events = false;
  so.compose_step = false;
  Scenario one = s;
  one.simulation.layers = 1;   // layers of one pass are alike: one layer gives the per-layer times
  const Report r = simulate_scenario(one, backend, so).report;
  if (layer_report != nullptr) *layer_report = r;
  StepReport st = step::compose_step(s, layer_times_of(r), {.link_sharing = backend.capabilities().models_contention});
  st.error_band = accuracy::error_band_for(s);
  return st;
}

}  // namespace hcpsim
