#pragma once
// Megatron-Core's pipeline schedules replayed on per-stage times: 1F1B (one model chunk per stage)
// and the interleaved 1F1B (vpp chunks per stage). Each stage runs its forward/backward steps in
// Megatron's order (warm-up forwards, steady 1F1B pairs, cool-down backwards); a step starts when
// its stage is free and its input has arrived (the previous stage's step plus the P2P transfer).
// Steps are replayed in time order (the stage whose next step can start first runs it), so that
// transfers that share links queue in the order they happen. NCCL calls running beside a step
// (sends, gradient buckets) stretch it by the share of the GPU they take. Checked against one task
// graph of the whole step (step_graph.h). Formulas and the closed forms: docs/planning.md ("The step").
#include <vector>

namespace hcpsim::step {

struct PipelineInputs {
  int stages = 1;          // pp
  int chunks = 1;          // vpp: model chunks per stage
  int micro_batches = 1;   // m
  // Seconds of one micro-batch through chunk c of stage s: forward_s[s][c], backward_s[s][c].
  std::vector<std::vector<double>> forward_s, backward_s;
  double p2p_forward_s = 0;    // activations to the next stage, one micro-batch
  double p2p_backward_s = 0;   // activation gradients to the previous stage
  // The links are shared (a backend with contention): a stage's sends (forward activations and
  // backward gradients) leave through the same links, and a stage's receives arrive through the
  // same links, so a transfer starts when both its sender's previous send and its receiver's
  // previous receive have arrived.
  bool serialize_sends = false;
  // Megatron's overlap_p2p_comm off (always so without interleaving): a send blocks its stage, whose
  // next step starts only after the transfer has arrived.
  bool blocking_sends = false;
  // NCCL calls beside the compute take a share of the GPU while they run (the compute they overlap
  // is stretched by load x overlap, as CostModel::comm_compute_load prices it in the layer graph).
  double send_load = 0;          // a stage's send to its neighbour, from the step's end for p2p_*_s
  // Gradient buckets reduced during the last micro-batch's backward (overlap_grad_reduce): each
  // backward step of micro-batch m - 1 runs as `grad_buckets_per_chunk` equal pieces (its layers),
  // each followed by one bucket of `grad_bucket_s` seconds on the stage's DP stream (buckets run back
  // to back). grad_bucket_s = 0: no buckets (the reduction then follows the stage's end).
  int grad_buckets_per_chunk = 1;
  std::vector<std::vector<int>> grad_buckets;   // per stage and chunk (an uneven split); empty: the int above
  double grad_bucket_s = 0;
  double grad_bucket_load = 0;
};

struct PipelineTimes {
  double makespan_s = 0;                 // first forward start to last backward end
  double bubble_fraction = 0;            // 1 - busiest stage's compute / makespan
  std::vector<double> stage_busy_s;      // compute seconds per stage
  std::vector<double> stage_end_s;       // when each stage's last backward ends
  std::vector<double> grad_reduced_s;    // when each stage's last gradient bucket ends (0 without buckets)
  double first_forward_s = 0;            // stage 0: end of micro-batch 0's first forward step
};

// One step of the schedule as a list of (forward?, micro-batch, chunk) in Megatron's order.
struct PipelineOp {
  bool forward = true;
  int micro_batch = 0;
  int chunk = 0;
};
std::vector<PipelineOp> schedule_order(int stage, int stages, int chunks, int micro_batches);

// Throws std::invalid_argument for sizes < 1, time tables of the wrong shape, or an interleaved
// schedule whose micro-batches do not divide by the stages (Megatron's requirement).
PipelineTimes simulate_pipeline(const PipelineInputs& in);

}  // namespace hcpsim::step
