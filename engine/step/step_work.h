#pragma once
// The work of a step outside the transformer layers, as sizes (bytes, FLOPs) rather than times, so
// that the composed step (step_model.h) and the whole-step task graph (step_graph.h) use the very
// same kernels and messages: the embedding on the first stage, the output layer and loss on the last,
// the activation transfer between stages, the data-parallel gradient and parameter shards and the
// optimizer's HBM traffic. Formulas: docs/planning.md ("From one layer to one step").
#include <vector>

#include "engine/graph/task_graph.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::step {

// One compute kernel of one GPU: its kind (Copy for memory-bound, Gemm), FLOPs and HBM bytes.
struct Kernel {
  TaskKind kind = TaskKind::Copy;
  double flops = 0;
  double bytes = 0;
  const char* label = "";
};

struct StepWork {
  // Per micro-batch, per GPU of the stage, run in this order.
  std::vector<Kernel> embedding_forward;    // first stage, before its first layer
  std::vector<Kernel> embedding_backward;   // first stage, after its first layer's backward (empty: prefill)
  std::vector<Kernel> output_forward;       // last stage, after its last layer (GEMM + loss)
  std::vector<Kernel> output_backward;      // last stage, before its last layer's backward (empty: prefill)
  // Per layer (model.elementwise_ops; empty with `none`): the memory-bound kernels of one layer
  // outside its GEMMs and core attention (norms, rotary embedding, SwiGLU, residual adds), run in
  // every forward (and every recomputed forward except selective) and in every backward.
  std::vector<Kernel> layer_elementwise_forward;
  std::vector<Kernel> layer_elementwise_backward;
  // Per layer, recompute_granularity selective_op (torchtitan's op-level checkpointing): the GEMMs
  // recomputed in the backward, every second matmul of the block in forward order (wq, wk, wv, wo,
  // w1, w3, w2: wk, wo and w3); the block's elementwise forward runs again too. Empty otherwise.
  std::vector<Kernel> layer_recompute_forward;
  double p2p_bytes = 0;                     // activations (or their gradients) one GPU sends per boundary
  double params = 0;                        // parameters one GPU of the busiest stage holds (estimate_memory's stage)
  int params_layers = 1;                    // transformer layers of that stage
  int dp_group_size = 1;                    // DP x CP ranks holding the same weights
  // Per GPU of the DP x CP group: the reduce-scatter's output shard (gradients in fp32 or, with
  // ddp.grad_reduce_in_fp32 false, in params_dtype) with the distributed optimizer, else the
  // all-reduced buffer; the all-gather's input shard (bf16
  // parameters, 0 without the distributed optimizer).
  double grad_reduce_bytes = 0;
  double param_gather_bytes = 0;
  double optimizer_bytes = 0;               // Adam's HBM traffic over the GPU's shard
  // `grad_norm` term: the gradient-clipping norm reads every fp32 gradient of the GPU's shard once
  // (Megatron's clip_grad_norm_fp32, before the optimizer); 0 with the term off.
  double grad_norm_bytes = 0;
  // `fp8_work` term (fp8_work.h): the cast of the GPU's layer weights to FP8 with their transposes,
  // once per step; 0 without FP8 or with the term off.
  double fp8_weight_bytes = 0;
  // After the gradient reduction, every GPU in this order: the gradient norm (when priced), Adam,
  // the FP8 weight cast (when priced). Filled by step_work from the three sizes above.
  std::vector<Kernel> step_end;
  // ddp.shard_parameters (ZeRO-3 / FSDP), per layer and GPU of the DP x CP group: the all-gather's
  // input shard (parameters in params_dtype) and the reduce-scatter's output shard (gradients in
  // params_dtype, or fp32 with ddp.grad_reduce_in_fp32); 0 without sharding. The non-layer parameters (embedding, output layer) keep the
  // step-end grad_reduce_bytes / param_gather_bytes above.
  double layer_param_gather_bytes = 0;
  double layer_grad_reduce_bytes = 0;
};

// Sizes for scenario `s` (training or prefill). Throws std::invalid_argument when tp or cp is < 1.
StepWork step_work(const Scenario& s);

// Whether gradients are reduced in fp32: ddp.grad_reduce_in_fp32 when stated, else fp32 for the DP
// buckets (Megatron-LM's default with BF16) and params_dtype under parameter sharding.
bool grad_reduce_in_fp32(const Scenario& s);

}  // namespace hcpsim::step
