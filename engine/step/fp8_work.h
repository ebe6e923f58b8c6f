#pragma once
// FP8's own work around each FP8 GEMM (cost-model term `fp8_work`, docs/metrics.md section 9.12):
// the memory-bound kernels Transformer Engine runs to feed its FP8 GEMMs, priced by their bytes.
#include "engine/scenario/scenario.h"
#include "engine/step/step_work.h"

#include <string>

namespace hcpsim::step {

// Bytes moved per element of a tensor quantized to FP8 (table in fp8_work.cpp): `from_norm` for the
// inputs of QKV and FC1 (whose norm already wrote them), `cast` for every other input, each output
// gradient and each weight.
struct Fp8QuantizeBytes {
  double from_norm = 0;
  double cast = 0;
};
Fp8QuantizeBytes fp8_quantize_bytes(const std::string& recipe, double bytes_per_element, bool transposed_copy);

// Whether the GPU's FP8 GEMMs read a transposed FP8 copy for the non-TN layouts (Hopper: yes;
// Blackwell, is_blackwell_gpu: no).
bool fp8_gemm_needs_transposed_copy(const std::string& gpu);

// With model.fp8 on a GPU with an FP8 peak and the `fp8_work` term on, appends to `w`:
//  - per layer forward, the quantization of the four projections' inputs (with the copies the
//    weight-gradient GEMM reads), by recipe and GPU (layer_elementwise_forward, after the elementwise
//    kernels);
//  - per layer backward, the quantization of the four output gradients (layer_elementwise_backward);
//  - per step, the quantization of the rank's layer weights (fp8_weight_bytes).
// Does nothing otherwise, or without model.ffn_hidden_size.
void add_fp8_work(const Scenario& s, StepWork& w);

}  // namespace hcpsim::step
