#pragma once
// FP8 rates of the cost-model term `fp8_work` (docs/metrics.md section 9.12): which GEMMs run in
// FP8 under Transformer Engine's recipe, and how much faster FP8 attention runs than BF16.
#include <string_view>

namespace hcpsim {

// FP8 attention (model.fp8_dot_product_attention) runs at this multiple of the BF16 attention rate
// of the same shape. FlashAttention-3 (Shah et al., 2024, arXiv:2407.08608, abstract and section 4):
// BF16 up to 740 TFLOP/s, FP8 close to 1.2 PFLOP/s on H100 SXM5: 1.2 / 0.74 = 1.6, not the 2x of the
// peaks (the softmax and the P·V rescaling do not speed up with the tensor cores).
constexpr double kFp8AttentionSpeedup = 1.6;

// True when a GEMM task labelled `label` runs in FP8 under model.fp8: every projection of a layer
// (Transformer Engine's Linear / LayerNormLinear modules). The output layer ("output_gemm",
// "output_dgrad", "output_wgrad") is Megatron-Core's ColumnParallelLinear, outside TE's FP8
// autocast, and stays BF16.
bool fp8_gemm_label(std::string_view label);

}  // namespace hcpsim
