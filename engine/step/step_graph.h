#pragma once
// build_step_graph: ONE task graph for a whole training step, the reference the composed step
// (step_model.h) is checked against on small scenarios. Every rank of every pipeline stage runs its
// stage's layers as copies of the real layer graph (engine/schedule/, one copy per micro-batch,
// chunk, layer and pass, on that stage's own ranks), in Megatron's 1F1B or interleaved order
// (pipeline_schedule.h) expressed as stream-order edges:
//
//   stage 0  [emb|L0 L1] F0 ─send─▶ ...                       ... ◀─recv─ B0 [L1 L0|emb] ─RS─┐
//   stage 1           ─recv─▶ [L2 L3|out] F0 → [out|L3 L2] B0 ─send─▶ ...             ─RS─┤ barrier
//                                                                                          ├─▶ Adam ─▶ AG
//
// Between stages, the activations (forward) and their gradients (backward) travel as SendRecv
// tasks from each rank to the rank with the same TP, CP and DP coordinates on the next (previous)
// stage, on the real route; the receive is posted ahead (Megatron's batched isend/irecv), so a
// transfer starts when its producer ends, the sender's previous send and the receiver's previous
// receive are done (the pipeline communicator's NCCL stream runs a rank's sends in the order they
// are produced and its receives in the order its schedule consumes them). Data parallelism: reduce-scatter of the fp32 gradients
// (all-reduce without the distributed optimizer) over each DP x CP group, one bucket per layer
// launched after the last micro-batch's backward of that layer (overlap_grad_reduce) or one
// collective after the stage's last backward; every rank's optimizer step waits for every
// reduction (the gradient-norm all-reduce of Megatron's optimizer joins the stages); the bf16
// parameter all-gather follows the optimizer, or with overlap_param_gather runs at the start of the
// step in per-layer buckets that the first forward of each layer waits for. Sizes: step_work.h.
// Stream labels: pipeline transfers on nccl:p2p, DP x CP collectives on nccl:cp (labels only;
// the order is in the edges). Size limit and the measured differences: docs/planning.md.
#include <cstddef>

#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::step {

struct StepGraphOptions {
  std::size_t max_tasks = 2'000'000;   // build_step_graph throws when the estimate is above this
};

// Tasks the step graph of `s` would hold, estimated from the layer graph of one pipeline stage of
// the scenario's model-parallel slice (cheap: no whole-cluster graph is built).
std::size_t step_graph_task_estimate(const Scenario& s);

// The graph of one training step of `s` on `layout` (RankLayout::from_scenario(s)). Throws
// std::invalid_argument for prefill, for batch or pipeline sizes that do not divide (validate()
// names them first), and when the estimate exceeds options.max_tasks (the message gives both
// numbers and what to reduce).
TaskGraph build_step_graph(const Scenario& s, const RankLayout& layout, const StepGraphOptions& options = {});

}  // namespace hcpsim::step
