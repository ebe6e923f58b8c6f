#pragma once
// compose_step: the whole training step (or prefill) from the times of one layer for one
// micro-batch, as a backend predicted them. Stages hold num_layers / pp layers (in vpp chunks);
// the first stage adds the embedding, the last the output layer and loss; the pipeline schedule
// (pipeline_schedule.h) runs m micro-batches with P2P transfers timed on the real route between
// neighbouring stages; DP collectives are NCCL rings over the DP x CP group on the network model.
// Model and formulas: docs/planning.md ("The step").
#include "engine/scenario/scenario.h"
#include "engine/step/step_report.h"

namespace hcpsim::step {

// One micro-batch, one layer, slowest rank (Report's per-layer means).
struct LayerTimes {
  double layer_forward_s = 0;
  double layer_backward_s = 0;
  double attention_forward_s = 0;   // what selective recomputation runs again
  bool whole_layer = true;          // false: the times cover attention only
};

struct StepOptions {
  // The backend shares links between concurrent flows (BackendCapabilities::models_contention):
  // the transfers of a stage boundary (one per TP x CP x DP rank, all at once) share NICs and GPU
  // ports, and a stage's sends queue on its links. Off: each transfer alone (as the analytic
  // backend times the whole-step graph).
  bool link_sharing = false;
};

// Throws std::invalid_argument when the scenario's batch or pipeline sizes do not divide
// (validate() reports those first).
StepReport compose_step(const Scenario& s, const LayerTimes& layer, const StepOptions& options = {});

// The smallest scenario with the same layer times: pp = 1 and only as many data-parallel
// replicas as share the nodes of one TP x CP group (identical replicas are computed once). Its
// layer graph is what compose_step needs. Scenarios with faults are kept whole (faults name ranks
// and nodes of the whole cluster).
Scenario model_parallel_slice(const Scenario& s);

}  // namespace hcpsim::step
