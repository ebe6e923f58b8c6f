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
};

// `gated_mlp`: SwiGLU (3 matrices h x ffn); ffn_hidden_size 0 means 4h.
ModelFlops model_flops(const Scenario& s, bool gated_mlp = true);

}  // namespace hcpsim::step
