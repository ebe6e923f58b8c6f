#pragma once
// One prediction end to end: layout, task graph, cost model, backend run, report. Used by
// `hcpsim simulate`, the golden-report test and sweeps.
#include <functional>
#include <string>

#include "engine/backend/backend.h"
#include "engine/fold/fold_plan.h"
#include "engine/report/report.h"
#include "engine/step/step_model.h"
#include "engine/trace/trace_filter.h"

namespace hcpsim {

struct SimulationResult {
  Trace trace;     // header, and every event when keep_events is true
  Report report;
  std::size_t tasks = 0;
  std::size_t trace_file_events = 0;   // events written to SimulateOptions::trace_path
};

struct SimulateOptions {
  // Keep every event as a TraceEvent in SimulationResult::trace (what the GUI and the tests read).
  // The report never needs them: it is computed from the graph and the task times (16 bytes a task).
  bool keep_events = true;
  // Also write a Chrome-trace file of the events trace_filter keeps (gzip when the path ends in
  // ".gz"), streamed from the graph and the task times; empty: none. Throws std::runtime_error
  // naming the file when it cannot be written.
  std::string trace_path;
  TraceFilter trace_filter;
  ProgressFn progress;       // may be empty
  // Called after each stage of the run with its name and its wall time in seconds ("build graph",
  // "run", "report", ...), what `hcpsim -v simulate` prints; may be empty.
  std::function<void(const char* stage, double wall_s)> stage_done;
  bool compose_step = true;  // fill Report::step from the layer times (engine/step/step_model.h)
  // Fold identical replicas (engine/fold/fold_plan.h) when simulation.fold is auto: simulate one
  // unit (a TP x CP group and the groups it shares nodes with, pp 1) and report it for the whole job.
  // Pipeline stages and data-parallel replicas on other nodes run the same layer graph and share no
  // link with it during the layer, so their times are identical. A trace file written from a
  // folded run repeats the unit's events for the replicas its rank filter keeps.
  bool replicas_once = true;
  std::string unfold_reason;   // said in the report's fold note when replicas_once is false
};

// How `s` is simulated under `options` (replicas_once, unfold_reason): one fold unit or the whole job.
FoldPlan plan_simulation(const Scenario& s, const SimulateOptions& options);

// Runs `backend` on the graph (graph_options_from) of fold.simulated, fold being
// plan_simulation(s, options), and reports it for the whole job `s`. Throws std::invalid_argument for
// a scenario the builders reject and std::runtime_error when the backend cannot finish.
SimulationResult simulate_planned(const Scenario& s, const FoldPlan& fold, Backend& backend,
                                  const SimulateOptions& options);

// simulate_planned with the plan made here.
SimulationResult simulate_scenario(const Scenario& s, Backend& backend, const SimulateOptions& options = {});

// The step of a scenario without its whole-cluster graph: the backend runs the layer graph of
// step::model_parallel_slice(s) (one TP x CP group and the replicas sharing its nodes, one layer),
// and compose_step builds the step of `s` from those times. What `hcpsim plan` and the sweeps use.
// Throws as simulate_scenario, and std::invalid_argument when the batch does not divide.
StepReport predict_step(const Scenario& s, Backend& backend, Report* layer_report = nullptr);

// The layer times compose_step needs, from a report (attention times when the layer is attention only).
step::LayerTimes layer_times_of(const Report& r);

}  // namespace hcpsim
