// FP8 casts around Transformer Engine's FP8 GEMMs. Per element: a cast with transpose reads the
// BF16 tensor (e bytes) and writes its FP8 row-wise and column-wise copies (1 + 1 bytes), its amax
// taken in the same pass (TE's cast_transpose kernels). The inputs of the QKV and FC1 projections
// come out of TE's LayerNormLinear norm already in FP8; only their transpose is added (read 1,
// write 1). Sources: Transformer Engine's Linear / LayerNormLinear forward (the input and weight
// quantizers with columnwise usage for the wgrad GEMM) and backward (grad-output cast_transpose).
#include "engine/step/fp8_work.h"

#include <algorithm>

#include "engine/cost/gemm_efficiency.h"
#include "engine/cost/layer_gemms.h"

namespace hcpsim::step {
namespace {

constexpr double kFp8 = 1.0;   // bytes per FP8 element

struct Projection {
  const char* forward;     // layer_ops label of the forward GEMM
  bool input_from_norm;    // LayerNormLinear: the norm writes the FP8 input
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

void add_fp8_work(const Scenario& s, StepWork& w) {
  if (!s.fp8_enabled() || !(s.cluster.gpu.fp8_flops > 0) || !s.cluster.efficiency.terms.fp8_work) return;
  if (s.model.ffn_hidden_size <= 0 || s.model.hidden_size <= 0) return;
  const double e = bytes_per_element(s.model.params_dtype);
  const double layers = static_cast<double>(s.model.num_layers) / std::max(1, s.pp());
  for (const Projection& p : kProjections) {
    const auto g = layer_gemm_shape(s, p.forward);
    if (!g) continue;
    const double input = g->m * g->k, output = g->m * g->n, weight = g->k * g->n;
    const double cast_bytes = p.input_from_norm ? 2 * kFp8 * input : (e + 2 * kFp8) * input;
    w.layer_elementwise_forward.push_back({TaskKind::Copy, 0, cast_bytes, p.cast_label});
    w.layer_elementwise_backward.push_back({TaskKind::Copy, 0, (e + 2 * kFp8) * output, p.grad_cast_label});
    w.fp8_weight_bytes += layers * (e + 2 * kFp8) * weight;
  }
}

}  // namespace hcpsim::step
