#pragma once
// The whole training step as trace events: the step's task graph (engine/step/step_graph.h: every
// pipeline stage and micro-batch in Megatron's 1F1B or interleaved order, the P2P transfers, the DP
// reduce-scatter / all-gather buckets and the optimizer) run by a backend. What `hcpsim simulate
// --step-trace` writes and the GUI's step timeline draws.
#include <cstddef>
#include <string>

#include "engine/scenario/scenario.h"
#include "engine/trace/trace.h"

namespace hcpsim::app {

struct StepTraceOptions {
  // Keep the events of the first data-parallel replica and the first TP rank only: the other DP
  // replicas and TP ranks run the same tasks at the same times (the CP ranks and the stages differ).
  bool fold_replicas = true;
  std::size_t max_tasks = 2'000'000;   // the step graph's size limit (build_step_graph refuses above)
};

// `backend` empty: the scenario's simulation.backend. Throws std::invalid_argument for a scenario the
// step graph refuses (prefill, sizes that do not divide, above max_tasks: the message gives the
// estimate and what to reduce), or a backend that does not predict time; std::runtime_error when the
// backend cannot finish.
Trace predict_step_trace(const Scenario& s, const std::string& backend, const StepTraceOptions& options = {});

}  // namespace hcpsim::app
