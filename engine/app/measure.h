#pragma once
// A measured run through the application layer, as a prediction goes through predict(): the
// scenario's layout and task graph (the task ids `simulate` uses), a runner that measures that
// graph (kernels/: one GPU emulating every rank, one MPI process per GPU, or one CPU process per
// rank), and the Report every prediction gets, computed from the measured trace
// (engine/report/report.h).
#include <functional>
#include <optional>

#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"
#include "engine/report/report.h"
#include "engine/scenario/scenario.h"
#include "engine/trace/trace.h"

namespace hcpsim::app {

struct Measurement {
  Trace trace;
  Report report;
  bool reporting_rank = true;   // false where the runner returned no trace (an MPI rank other than 0)
};

// Measures `g`, built on `layout`, and returns the trace; std::nullopt on a process that does not
// report. Throws on failure (the runner's message).
using GraphRunner = std::function<std::optional<Trace>(const TaskGraph& g, const RankLayout& layout)>;

struct MeasureOptions {
  // The graph carries the schedule's numerical payloads (real data: the CPU runner, `run --check`);
  // such a graph holds the attention alone (the layer's GEMMs and TP collectives carry none).
  bool with_payloads = false;
};

// Builds the scenario's layout and graph, runs `runner` on it and reports the trace with the
// scenario's layer count (ReportOptions::num_layers) and the run's wall time.
Measurement measure(const Scenario& s, const GraphRunner& runner, const MeasureOptions& options = {});

}  // namespace hcpsim::app
