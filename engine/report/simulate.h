#pragma once
// One prediction end to end: layout, task graph, cost model, backend run, report. Used by
// `hcpsim simulate`, the golden-report test and sweeps.
#include <string>

#include "engine/backend/backend.h"
#include "engine/report/report.h"

namespace hcpsim {

struct SimulationResult {
  Trace trace;     // every event (empty when keep_events is false)
  Report report;
  std::size_t tasks = 0;
};

struct SimulateOptions {
  bool keep_events = true;   // keep the full trace (needed for --trace and the critical path)
  ProgressFn progress;       // may be empty
};

// Runs `backend` on the scenario's graph (graph_options_from(s)). Throws std::invalid_argument for
// a scenario the builders reject and std::runtime_error when the backend cannot finish.
SimulationResult simulate_scenario(const Scenario& s, Backend& backend, const SimulateOptions& options = {});

}  // namespace hcpsim
