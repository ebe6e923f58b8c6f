#pragma once
// The rest of the pipeline for a prediction: backend by name from the one registry, then layout,
// task graph, backend run, trace and report (engine/app/simulate.h).
#include <string>

#include "engine/app/simulate.h"

namespace hcpsim::app {

// `backend` empty: the scenario's simulation.backend. Throws std::invalid_argument for an unknown
// backend (the registry's message) or one that does not predict time, std::runtime_error when the
// backend cannot finish.
SimulationResult predict(const Scenario& s, const std::string& backend, const SimulateOptions& options = {});
// The same with the fold plan made already (plan_simulation(s, options)), as a command that tells
// the user about it before the run.
SimulationResult predict(const Scenario& s, const FoldPlan& fold, const std::string& backend,
                         const SimulateOptions& options);

// The same on the scenario's first simulated layer, attention only (no whole-layer operations):
// what the GUI's timeline and built-in sweep show.
SimulationResult predict_attention(const Scenario& s, const std::string& backend,
                                   const SimulateOptions& options = {});

}  // namespace hcpsim::app
