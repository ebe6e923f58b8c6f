#include "engine/cost/layer_gemms.h"

#include <algorithm>

namespace hcpsim {

LayerDims layer_dims_of(const Scenario& s) {
  LayerDims d;
  const int cp = std::max(1, s.cp());
  d.tokens = static_cast<double>(s.train.micro_batch_size) * static_cast<double>(s.model.seq_length) / cp;
  d.hidden = s.model.hidden_size;
  const int g = s.model.num_query_groups > 0 ? s.model.num_query_groups : s.model.num_attention_heads;
  d.q_cols = static_cast<double>(s.model.num_attention_heads) * s.head_dim();
  d.kv_cols = static_cast<double>(g) * s.head_dim();
  d.ffn = s.model.ffn_hidden_size;
  d.tp = std::max(1, s.tp());
  d.e = bytes_per_element(s.model.params_dtype);
  return d;
}

LayerGemm qkv_gemm(const LayerDims& d) { return {"qkv_proj", d.tokens, d.hidden, (d.q_cols + 2 * d.kv_cols) / d.tp}; }
LayerGemm out_proj_gemm(const LayerDims& d) { return {"out_proj", d.tokens, d.q_cols / d.tp, d.hidden}; }
LayerGemm fc1_gemm(const LayerDims& d) { return {"fc1", d.tokens, d.hidden, 2 * d.ffn / d.tp}; }
LayerGemm fc2_gemm(const LayerDims& d) { return {"fc2", d.tokens, d.ffn / d.tp, d.hidden}; }

LayerGemm dgrad_of(const LayerGemm& f, const char* label) { return {label, f.m, f.n, f.k}; }
LayerGemm wgrad_of(const LayerGemm& f, const char* label) { return {label, f.k, f.m, f.n}; }

std::optional<GemmShape> layer_gemm_shape(const Scenario& s, std::string_view label) {
  const LayerDims d = layer_dims_of(s);
  struct Named {
    LayerGemm forward;
    const char* dgrad;
    const char* wgrad;
  };
  const Named all[] = {{qkv_gemm(d), "qkv_proj_dgrad", "qkv_proj_wgrad"},
                       {out_proj_gemm(d), "out_proj_dgrad", "out_proj_wgrad"},
                       {fc1_gemm(d), "fc1_dgrad", "fc1_wgrad"},
                       {fc2_gemm(d), "fc2_dgrad", "fc2_wgrad"}};
  for (const Named& x : all)
    for (const LayerGemm& g : {x.forward, dgrad_of(x.forward, x.dgrad), wgrad_of(x.forward, x.wgrad)})
      if (label == g.label) return GemmShape{g.m, g.n, g.k};
  return std::nullopt;
}

}  // namespace hcpsim
