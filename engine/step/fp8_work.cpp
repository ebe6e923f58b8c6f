// FP8 casts around Transformer Engine's FP8 GEMMs, by recipe (`model.fp8_recipe`) and GPU. Per
// element of a quantized tensor, `e` bytes per BF16 element:
//
//   recipe      LayerNormLinear input (the norm     other input, output gradient, weight
//               already wrote the BF16 tensor)
//   delayed     c + c                               e + 1 + c        amax in the cast's pass
//   tensorwise  e + 1 + c                           e + e + 1 + c    amax pass, then the cast
//   mxfp8       e + 2 + 2/32                        e + 2 + 2/32     row- and column-wise, E8M0 per 32
//   blockwise   e + 2 + 8/128                       e + 2 + 8/128    row- and column-wise, fp32 per 128
//
// `c` = 1 where the GPU's FP8 GEMMs take only the TN layout (Hopper): the wgrad / dgrad GEMMs read a
// transposed FP8 copy; Blackwell runs the other layouts from the row-wise copy (c = 0). Sources:
// Transformer Engine, pytorch/csrc/extensions/normalization.cpp (the norm fuses the FP8 cast for
// delayed scaling only; current scaling writes the norm output in high precision with its amax and
// quantizes in a second kernel; MXFP8 norms are unfused unless NVTE_NORM_FWD_USE_CUDNN), the
// Float8CurrentScalingQuantizer (compute_amax, then quantize), and pytorch/utils.py
// `is_non_tn_fp8_gemm_supported` (compute capability 10.x and 13+).
#include "engine/step/fp8_work.h"

#include <algorithm>

#include "engine/cost/gemm_efficiency.h"
#include "engine/cost/layer_gemms.h"
#include "engine/scenario/gpu_family.h"

namespace hcpsim::step {
namespace {

struct Projection {
  const char* forward;     // layer_ops label of the forward GEMM
  bool input_from_norm;    // LayerNormLinear: the norm writes its input
  const char* cast_label;
  const char* grad_cast_label;
};

constexpr Projection kProjections[] = {
    {"qkv_proj", true, "fp8_transpose_qkv_in", "fp8_cast_transpose_qkv_grad"},
    {"out_proj", false, "fp8_cast_transpose_attn_out", "fp8_cast_transpose_out_proj_grad"},
    {"fc1", true, "fp8_transpose_mlp_in", "fp8_cast_transpose_fc1_grad"},
    {"fc2", false, "fp8_cast_transpose_fc2_in", "fp8_cast_transpose_mlp_out_grad"},
};

}  // namespace

bool fp8_gemm_needs_transposed_copy(const std::string& gpu) {
  return !is_blackwell_gpu(gpu);
}

Fp8QuantizeBytes fp8_quantize_bytes(const std::string& recipe, double e, bool transposed_copy) {
  const double c = transposed_copy ? 1.0 : 0.0;
  if (recipe == "tensorwise") return {e + 1 + c, 2 * e + 1 + c};
  if (recipe == "mxfp8") return {e + 2 + 2.0 / 32, e + 2 + 2.0 / 32};
  if (recipe == "blockwise") return {e + 2 + 8.0 / 128, e + 2 + 8.0 / 128};
  return {2 * c, e + 1 + c};   // delayed
}

void add_fp8_work(const Scenario& s, StepWork& w) {
  if (!s.fp8_enabled() || !(s.cluster.gpu.fp8_flops > 0) || !s.cluster.efficiency.terms.fp8_work) return;
  if (s.model.ffn_hidden_size <= 0 || s.model.hidden_size <= 0) return;
  const double e = bytes_per_element(s.model.params_dtype);
  const Fp8QuantizeBytes q =
      fp8_quantize_bytes(s.model.fp8_recipe, e, fp8_gemm_needs_transposed_copy(s.cluster.gpu.name));
  const double layers = static_cast<double>(s.model.num_layers) / std::max(1, s.pp());
  for (const Projection& p : kProjections) {
    const auto g = layer_gemm_shape(s, p.forward);
    if (!g) continue;
    const double input = g->m * g->k, output = g->m * g->n, weight = g->k * g->n;
    const double cast_bytes = (p.input_from_norm ? q.from_norm : q.cast) * input;
    if (cast_bytes > 0) w.layer_elementwise_forward.push_back({TaskKind::Copy, 0, cast_bytes, p.cast_label});
    w.layer_elementwise_backward.push_back({TaskKind::Copy, 0, q.cast * output, p.grad_cast_label});
    w.fp8_weight_bytes += layers * q.cast * weight;
  }
}

}  // namespace hcpsim::step
