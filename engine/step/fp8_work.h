#pragma once
// FP8's own work around each FP8 GEMM (cost-model term `fp8_work`, docs/metrics.md section 9.12):
// the memory-bound kernels Transformer Engine runs to feed its FP8 GEMMs, priced by their bytes.
#include "engine/scenario/scenario.h"
#include "engine/step/step_work.h"

namespace hcpsim::step {

// With model.fp8 on a GPU with an FP8 peak and the `fp8_work` term on, appends to `w`:
//  - per layer forward, the casts of the four projections' inputs to FP8 with the transposed copy
//    their weight-gradient GEMM reads (layer_elementwise_forward, after the elementwise kernels);
//  - per layer backward, the casts of the four output gradients with their transposes
//    (layer_elementwise_backward);
//  - per step, the cast of the rank's layer weights to FP8 with their transposes (fp8_weight_bytes).
// Does nothing otherwise, or without model.ffn_hidden_size.
void add_fp8_work(const Scenario& s, StepWork& w);

}  // namespace hcpsim::step
