#include "engine/step/step_work.h"

#include <algorithm>
#include <stdexcept>

#include "engine/memory/memory_model.h"
#include "engine/scenario/pipeline_split.h"
#include "engine/step/fp8_work.h"
#include "engine/cost/layer_gemms.h"
#include "engine/step/layer_elementwise.h"

namespace hcpsim::step {
namespace {

// Bytes the Adam step moves per parameter it updates: read the fp32 gradient (4), read and write
// the fp32 main parameter and both moments (12 + 12), write the bf16 parameter (2).
constexpr double kOptimizerBytesPerParam = 30.0;
constexpr double kFp32GradBytesPerParam = 4.0;   // fp32 gradient buckets (grad_reduce_in_fp32)
constexpr double kParamBytesPerParam = 2.0;   // bf16 parameters gathered back

// Parameters of one transformer layer on one TP rank: QKV, output projection, gated MLP, two norms.
double layer_params(const Scenario& s) {
  const double h = s.model.hidden_size, f = s.model.ffn_hidden_size, tp = std::max(1, s.tp());
  const int g = s.model.num_query_groups > 0 ? s.model.num_query_groups : s.model.num_attention_heads;
  const double q = static_cast<double>(s.model.num_attention_heads) * s.head_dim();
  const double kv = static_cast<double>(g) * s.head_dim();
  return (h * (q + 2 * kv) + q * h + 3 * h * f) / tp + 2 * h;
}

// Bytes per gradient element on the wire.
double grad_bytes_per_param(const Scenario& s) {
  return grad_reduce_in_fp32(s) ? kFp32GradBytesPerParam : bytes_per_element(s.model.params_dtype);
}

// recompute_granularity selective_op: torchtitan's policy saves every matmul output except every
// second one per block, counting in forward order wq, wk, wv, wo, w1, w3, w2 (torchtitan's
// llama parallelize code, _apply_ac_to_transformer_block), so wk, wo and w3 run again: the KV
// half's K share of the fused QKV projection, the whole output projection, half of the fused FC1.
void add_recomputed_gemms(const Scenario& s, StepWork& w) {
  if (s.model.recompute_granularity != RecomputeGranularity::SelectiveOp) return;
  const int g = s.model.num_query_groups > 0 ? s.model.num_query_groups : s.model.num_attention_heads;
  const double q = static_cast<double>(s.model.num_attention_heads), kv = g;
  const struct { const char* label; double share; } parts[] = {
      {"qkv_proj", kv / (q + 2 * kv)}, {"out_proj", 1.0}, {"fc1", 0.5}};
  const double e = bytes_per_element(s.model.params_dtype);
  for (const auto& p : parts) {
    const auto shape = layer_gemm_shape(s, p.label);
    if (!shape) continue;
    const double n = shape->n * p.share;
    w.layer_recompute_forward.push_back(
        {TaskKind::Gemm, 2 * shape->m * n * shape->k, e * (shape->m * shape->k + shape->k * n + shape->m * n), p.label});
  }
}

// The kernels after the gradient reduction (StepWork::step_end).
void add_step_end(const Scenario& s, StepWork& w) {
  const bool sharded = s.ddp.use_distributed_optimizer || s.ddp.shard_parameters;
  if (s.cluster.efficiency.terms.grad_norm)
    w.grad_norm_bytes = kFp32GradBytesPerParam * w.params / (sharded ? w.dp_group_size : 1);
  if (w.grad_norm_bytes > 0) w.step_end.push_back({TaskKind::Copy, 0, w.grad_norm_bytes, "grad_norm"});
  w.step_end.push_back({TaskKind::Copy, 0, w.optimizer_bytes, "optimizer"});
  if (w.fp8_weight_bytes > 0) w.step_end.push_back({TaskKind::Copy, 0, w.fp8_weight_bytes, "fp8_weight_cast"});
}

}  // namespace

bool grad_reduce_in_fp32(const Scenario& s) { return s.ddp.grad_reduce_in_fp32.value_or(!s.ddp.shard_parameters); }

StepWork step_work(const Scenario& s) {
  if (s.tp() < 1 || s.cp() < 1) throw std::invalid_argument("step_work: tp and cp must be >= 1");
  const bool prefill = s.train.mode == TrainMode::Prefill;
  const double e = bytes_per_element(s.model.params_dtype);
  const double h = s.model.hidden_size;
  const double tokens = static_cast<double>(s.train.micro_batch_size) * s.model.seq_length / s.cp();
  const double vocab_t = static_cast<double>(s.model.vocab_size) / s.tp();
  StepWork w;
  // Embedding: a row gather forward, a scatter-add of fp32 gradients backward.
  w.embedding_forward.push_back({TaskKind::Copy, 0, 2.0 * e * tokens * h, "embedding"});
  if (!prefill) w.embedding_backward.push_back({TaskKind::Copy, 0, (e + 2.0 * 4.0) * tokens * h, "embedding_bwd"});
  // Output layer: [tokens x h] x [h x V/tp], then the vocab-parallel cross entropy (bf16 logits
  // read, fp32 softmax written). Backward: dgrad + wgrad GEMMs and the softmax gradient. Prefill needs
  // the logits of the last token of each sequence only.
  const double out_tokens = prefill ? static_cast<double>(s.train.micro_batch_size) : tokens;
  const double gemm_flops = 2.0 * out_tokens * h * vocab_t;
  const double gemm_bytes = e * (out_tokens * h + h * vocab_t + out_tokens * vocab_t);
  w.output_forward.push_back({TaskKind::Gemm, gemm_flops, gemm_bytes, "output_gemm"});
  if (!prefill) {
    w.output_forward.push_back({TaskKind::Copy, 0, (e + 4.0) * out_tokens * vocab_t, "cross_entropy"});
    w.output_backward.push_back({TaskKind::Copy, 0, (4.0 + e) * out_tokens * vocab_t, "cross_entropy_bwd"});
    w.output_backward.push_back({TaskKind::Gemm, gemm_flops, gemm_bytes, "output_dgrad"});
    w.output_backward.push_back({TaskKind::Gemm, gemm_flops, gemm_bytes, "output_wgrad"});
  }
  // Activations [s/cp, b, h] per TP rank, scattered over TP with sequence parallelism.
  add_layer_elementwise(s, w);
  add_fp8_work(s, w);
  if (!prefill) add_recomputed_gemms(s, w);
  w.p2p_bytes = e * tokens * h / (s.model.sequence_parallel ? s.tp() : 1);
  const MemoryEstimate busiest = estimate_memory(s);
  w.params = busiest.parameters;
  w.params_layers = std::max(1, busiest.stage_layers);
  w.dp_group_size = s.dp() * s.cp();
  const double n = w.dp_group_size;
  if (s.ddp.shard_parameters) {
    // Each layer's parameters gathered and its gradients reduced per layer (gradients in
    // grad_bytes_per_param); the rest (embedding, output layer, final norm) once per step like the
    // distributed optimizer's buckets.
    const double layers = uneven_pipeline_split(s.model) ? busiest.stage_layers
                                                         : static_cast<double>(s.model.num_layers) / std::max(1, s.pp());
    const double rest = std::max(0.0, w.params - layers * layer_params(s));
    w.layer_param_gather_bytes = e * layer_params(s) / n;
    w.layer_grad_reduce_bytes = grad_bytes_per_param(s) * layer_params(s) / n;
    w.grad_reduce_bytes = grad_bytes_per_param(s) * rest / n;
    w.param_gather_bytes = e * rest / n;
    w.optimizer_bytes = kOptimizerBytesPerParam * w.params / n;
  } else if (s.ddp.use_distributed_optimizer) {
    w.grad_reduce_bytes = grad_bytes_per_param(s) * w.params / n;
    w.param_gather_bytes = kParamBytesPerParam * w.params / n;
    w.optimizer_bytes = kOptimizerBytesPerParam * w.params / n;
  } else {
    w.grad_reduce_bytes = grad_bytes_per_param(s) * w.params;
    w.optimizer_bytes = kOptimizerBytesPerParam * w.params;
  }
  if (!prefill) add_step_end(s, w);
  return w;
}

}  // namespace hcpsim::step
