#include "engine/step/model_flops.h"

namespace hcpsim::step {

ModelFlops model_flops(const Scenario& s, bool gated_mlp) {
  const double h = s.model.hidden_size;
  const double a = s.model.num_attention_heads;
  const double g = s.model.num_query_groups > 0 ? s.model.num_query_groups : a;
  const double d = s.head_dim();
  const double f = s.model.ffn_hidden_size > 0 ? s.model.ffn_hidden_size : 4.0 * h;
  const double seq = static_cast<double>(s.model.seq_length);
  const double vocab = static_cast<double>(s.model.vocab_size);
  const double L = s.model.num_layers;
  const double qkv = 2.0 * h * (a * d + 2.0 * g * d);
  const double out_proj = 2.0 * a * d * h;
  const double mlp = 2.0 * (gated_mlp ? 3.0 : 2.0) * h * f;
  const double attention_square = 2.0 * 2.0 * a * d * seq;   // Q K^T and P V, every key of the sequence
  const double causal = s.model.attn_mask_type == MaskType::Causal ? 0.5 : 1.0;
  const double logits = 2.0 * h * vocab;
  ModelFlops m;
  m.per_token_forward = L * (qkv + out_proj + mlp + attention_square) + logits;
  m.per_token_forward_causal = L * (qkv + out_proj + mlp + causal * attention_square) + logits;
  const double tokens = static_cast<double>(s.global_batch()) * seq;
  const double passes = s.train.mode == TrainMode::Train ? 3.0 : 1.0;
  m.step = passes * tokens * m.per_token_forward;
  m.step_causal = passes * tokens * m.per_token_forward_causal;
  m.step_layer_gemm = passes * tokens * L * (qkv + out_proj + mlp);
  m.step_attention = passes * tokens * L * attention_square;
  m.step_attention_causal = passes * tokens * L * causal * attention_square;
  m.step_output_layer = passes * tokens * logits;
  return m;
}

double peak_time_s(const ModelFlops& f, const Scenario& s, double gpus, bool causal) {
  const GpuSpec& g = s.cluster.gpu;
  const bool fp8 = s.fp8_enabled() && g.fp8_flops > 0;
  const double gemm_peak = fp8 ? g.fp8_flops : g.bf16_flops;
  const double attention_peak = fp8 && s.model.fp8_dot_product_attention ? g.fp8_flops : g.bf16_flops;
  if (gpus <= 0 || g.bf16_flops <= 0) return 0.0;
  const double attention = causal ? f.step_attention_causal : f.step_attention;
  return (f.step_layer_gemm / gemm_peak + attention / attention_peak + f.step_output_layer / g.bf16_flops) / gpus;
}

}  // namespace hcpsim::step
