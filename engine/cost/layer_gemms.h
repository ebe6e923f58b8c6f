#pragma once
// The GEMMs of one transformer layer around CP attention, per rank (Megatron-Core layer with TP):
// the QKV and output projections and the gated MLP's FC1 and FC2, forward, dgrad and wgrad. The
// whole-layer graph (engine/schedule/layer_ops.cpp) adds them as tasks; the GEMM shape term
// (gemm_efficiency.h) and the FP8 work (engine/step/fp8_work.cpp) look their shapes up by label.
#include <optional>
#include <string_view>

#include "engine/cost/gemm_efficiency.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {

// The sizes the layer's GEMMs are made of, per rank.
struct LayerDims {
  double tokens = 0;      // b * s per rank (s = S / cp)
  double hidden = 0;      // h
  double q_cols = 0;      // query heads * head dim (whole model)
  double kv_cols = 0;     // KV heads * head dim (whole model)
  double ffn = 0;         // ffn_hidden_size
  double tp = 1;
  double e = 2;           // bytes per element
};

LayerDims layer_dims_of(const Scenario& s);

// One GEMM of [m x k] by [k x n] per rank, with the task label the layer graph gives it.
struct LayerGemm {
  const char* label;
  double m, k, n;
};

// Forward GEMMs per rank (m tokens x k in x n out). The MLP is gated (SwiGLU): FC1 produces 2*ffn columns.
LayerGemm qkv_gemm(const LayerDims& d);
LayerGemm out_proj_gemm(const LayerDims& d);
LayerGemm fc1_gemm(const LayerDims& d);
LayerGemm fc2_gemm(const LayerDims& d);

// dgrad and wgrad of a forward GEMM: the same FLOPs each, different operand shapes.
LayerGemm dgrad_of(const LayerGemm& f, const char* label);
LayerGemm wgrad_of(const LayerGemm& f, const char* label);

// Per-rank shape (output m x n, depth k) of the layer GEMM labelled `label` in `s`
// ("qkv_proj", "fc1_dgrad", "out_proj_wgrad", ...); nullopt for any other label.
std::optional<GemmShape> layer_gemm_shape(const Scenario& s, std::string_view label);

}  // namespace hcpsim
