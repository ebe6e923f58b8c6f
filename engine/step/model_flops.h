#pragma once
// Model FLOPs of a dense GQA transformer as Megatron-LM counts them for its "TFLOP/s/GPU" and MFU:
// GEMMs (2 FLOPs per multiply-add), attention scores and context over the full S x S square (no
// causal halving, Megatron-LM's convention), the output layer, and backward = 2 x forward.
// Recomputation is not counted (model FLOPs, not hardware FLOPs). docs/metrics.md section 10.
#include "engine/scenario/scenario.h"

namespace hcpsim::step {

struct ModelFlops {
  double per_token_forward = 0;      // one token, whole model, forward (Megatron's count)
  double per_token_forward_causal = 0;   // the same with the attention square halved (causal mask)
  double step = 0;                   // training: 3 x forward x global batch tokens; prefill: forward
  double step_causal = 0;
  // The step's FLOPs by the precision they run in: the transformer layers' GEMMs (FP8 with model.fp8),
  // the attention square (FP8 with fp8_dot_product_attention; also halved for a causal mask) and the
  // output layer (bf16: Transformer Engine's FP8 recipe covers the transformer layers only).
  double step_layer_gemm = 0;
  double step_attention = 0;
  double step_attention_causal = 0;
  double step_output_layer = 0;
};

// Seconds the step's model FLOPs take on `gpus` GPUs at the peak of the precision each op runs in
// (the MFU denominator: MFU = this / measured step time). `causal`: the attention square halved.
double peak_time_s(const ModelFlops& f, const Scenario& s, double gpus, bool causal);

// `gated_mlp`: SwiGLU (3 matrices h x ffn); ffn_hidden_size 0 means 4h.
ModelFlops model_flops(const Scenario& s, bool gated_mlp = true);

}  // namespace hcpsim::step
