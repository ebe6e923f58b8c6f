#pragma once
// The whole training step (or prefill) composed from one micro-batch's layer times: pipeline
// schedule, P2P activation transfers, DP gradient/parameter collectives, optimizer, embedding and
// output layer. Filled by compose_step (step_model.h); written by the report writers.
#include <optional>
#include <string>

#include "engine/error_band/error_band.h"

namespace hcpsim {

struct StepReport {
  std::string mode = "train";          // "train" or "prefill"
  bool attention_only = false;         // layer times cover attention only (no ffn_hidden_size)
  int micro_batches = 0;               // m = gbs / (mbs * dp)
  int global_batch = 0;                // sequences per step
  double time_s = 0;                   // training step, or prefill of the whole global batch
  double ttft_s = 0;                   // prefill: one sequence through every stage (0 for training)
  double tokens_per_s = 0;             // global batch tokens / time_s
  double tokens_per_s_per_gpu = 0;
  double model_tflops_per_gpu = 0;     // Megatron-LM's model FLOPs / time_s / GPUs
  double mfu = 0;                      // model_tflops_per_gpu / dense bf16 peak
  double mfu_causal = 0;               // the same with the causal attention square halved (what runs)
  double pipeline_bubble_fraction = 0; // 1 - busiest stage's compute / pipeline time

  // Breakdown (seconds)
  double pipeline_s = 0;               // warm-up + steady + cool-down, P2P included
  double stage_forward_s = 0;          // one micro-batch through the busiest stage (all its chunks)
  double stage_backward_s = 0;         // including recomputation
  double recompute_s = 0;              // of which recomputed forward, one micro-batch, busiest stage
  double elementwise_s = 0;            // of stage forward + backward: the layers' elementwise kernels
                                       // (model.elementwise_ops), recomputed ones included
  double embedding_s = 0;              // first stage, forward + backward, one micro-batch
  double output_layer_s = 0;           // last stage: output GEMM + loss, forward + backward
  double p2p_forward_s = 0;            // one activation transfer between neighbouring stages
  double p2p_backward_s = 0;
  double dp_grad_reduce_s = 0;         // reduce-scatter (distributed optimizer) or all-reduce, alone
  double dp_param_gather_s = 0;        // all-gather of the updated parameters (distributed optimizer)
  double dp_exposed_s = 0;             // the part of both not hidden behind compute
  double optimizer_s = 0;              // Adam step, HBM bytes of the GPU's shard
  // ddp.shard_parameters (ZeRO-3 / FSDP): one layer's parameter all-gather and gradient
  // reduce-scatter alone, and what they add to one micro-batch on the busiest stage (exposed calls and
  // the compute their hidden part slows down; included in stage_forward_s / stage_backward_s).
  double fsdp_param_gather_s = 0;
  double fsdp_grad_reduce_s = 0;
  double fsdp_exposed_s = 0;
  int dp_group_size = 0;               // DP x CP ranks the gradients are reduced over

  // How far measured runs of this class fell from their predictions in the backtest's holdout
  // cases (engine/error_band/error_band.h); nullopt when the class has too few holdout cases.
  std::optional<accuracy::ErrorBand> error_band;
};

}  // namespace hcpsim
