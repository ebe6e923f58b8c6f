#include "engine/memory/memory_model.h"

#include "engine/memory/hp_attention_memory.h"

#include <algorithm>
#include <stdexcept>

#include "engine/core/enum_names.h"
#include "engine/scenario/pipeline_split.h"
#include "engine/schedule/schedule_descriptor.h"

namespace hcpsim {
namespace {

constexpr double kLseBytes = 4.0;   // FlashAttention keeps the softmax log-sum-exp in fp32

int ffn_of(const Scenario& s) {
  return s.model.ffn_hidden_size > 0 ? s.model.ffn_hidden_size : 4 * s.model.hidden_size;
}
int kv_heads_of(const Scenario& s) {
  return s.model.num_query_groups > 0 ? s.model.num_query_groups : s.model.num_attention_heads;
}

// Parameters of one transformer layer as held by one TP rank (K/V replicated when g < tp).
double layer_params_per_tp_rank(const Scenario& s, const MemoryOptions& o) {
  const double h = s.model.hidden_size;
  const double d = s.head_dim();
  const double q_heads = s.heads_per_tp_rank();
  const double kv_heads = s.kv_heads_per_tp_rank();
  const double ffn = ffn_of(s);
  const double attention = 2.0 * h * q_heads * d + 2.0 * h * kv_heads * d;   // Q, O + K, V
  const double mlp = (o.gated_mlp ? 3.0 : 2.0) * h * ffn / s.tp();
  const double norms = 2.0 * h;                                               // replicated
  return attention + mlp + norms;
}

// Tensors one layer saves for backward, for one micro-batch (bytes; see the header's citation).
struct LayerActivations {
  double tp_replicated_bytes = 0;   // LN inputs, QKV/MLP GEMM inputs, dropout masks: / tp only with SP
  double tp_sharded_bytes = 0;      // Q, K, V, attention output, MLP intermediates
  double core_attention_bytes = 0;  // LSE (what selective recomputation drops)
};

LayerActivations layer_activations(const Scenario& s, const MemoryOptions& o) {
  const double e = bytes_per_element(s.model.params_dtype);
  const double sb = static_cast<double>(s.model.seq_length) / s.cp() * s.train.micro_batch_size;
  const double h = s.model.hidden_size;
  const double d = s.head_dim();
  const double q_heads = s.heads_per_tp_rank();
  const double kv_heads = s.kv_heads_per_tp_rank();
  const double ffn_t = static_cast<double>(ffn_of(s)) / s.tp();
  LayerActivations a;
  // two layer-norm inputs + QKV GEMM input + MLP fc1 input (each s*b*h elements)
  a.tp_replicated_bytes = 4.0 * e * sb * h;
  if (o.dropout) a.tp_replicated_bytes += 2.0 * sb * h;   // two 1-byte masks
  const double qkv = e * sb * (q_heads + 2.0 * kv_heads) * d;
  const double attn_out = e * sb * q_heads * d;           // input of the output projection
  const double mlp = o.gated_mlp ? e * sb * 3.0 * ffn_t    // fc1 output (gate+up) and SwiGLU output
                                 : e * sb * 2.0 * ffn_t;   // GeLU input and fc2 input
  a.tp_sharded_bytes = qkv + attn_out + mlp;
  a.core_attention_bytes = kLseBytes * sb * q_heads;
  return a;
}

// Transient CP attention buffers of one layer (docs/schedules.md "Memory the schedules keep"), from
// the schedule's descriptor, forward and backward, bytes.
schedule::CpBufferBytes cp_buffers(const Scenario& s, CpCommType type) {
  if (s.cp() <= 1) return {};
  return schedule::schedule_of(type).buffers(s);
}

std::int64_t vocab_of(const Scenario& s, const MemoryOptions& o) { return o.vocab_size.value_or(s.model.vocab_size); }
bool untied_of(const Scenario& s, const MemoryOptions& o) {
  return o.untied_embeddings.value_or(s.model.untie_embeddings_and_output_weights);
}

}  // namespace

Recompute recompute_of(const Scenario& s, const MemoryOptions& o) {
  if (o.recompute) return *o.recompute;
  switch (s.model.recompute_granularity) {
    case RecomputeGranularity::None: return Recompute::None;
    case RecomputeGranularity::Selective: return Recompute::Selective;
    case RecomputeGranularity::Full: return Recompute::Full;
    // One checkpoint per layer (the attention output instead of the layer input): Full's footprint.
    case RecomputeGranularity::NonAttention: return Recompute::Full;
    // torchtitan's op-level policy keeps the attention and most matmul outputs and drops the
    // elementwise ones: counted as Megatron's selective footprint (an approximation).
    case RecomputeGranularity::SelectiveOp: return Recompute::Selective;
  }
  return Recompute::None;
}

double model_parameter_count(const Scenario& s, const MemoryOptions& o) {
  const double h = s.model.hidden_size;
  const double d = s.head_dim();
  const double attention = 2.0 * h * s.model.num_attention_heads * d + 2.0 * h * kv_heads_of(s) * d;
  const double mlp = (o.gated_mlp ? 3.0 : 2.0) * h * ffn_of(s);
  const double layer = attention + mlp + 2.0 * h;
  const double embeddings = (untied_of(s, o) ? 2.0 : 1.0) * static_cast<double>(vocab_of(s, o)) * h;
  return s.model.num_layers * layer + embeddings + h;   // + final norm
}

namespace {

// Weights, gradients, optimizer states, activations, logits and KV cache of pipeline stage `stage`
// holding `layers` transformer layers: the input embedding on the first stage, the output layer
// (tied or not, the last stage holds its weights) with the final norm and the logits on the last.
void add_stage_items(const Scenario& s, const MemoryOptions& o, int stage, double layers, MemoryEstimate& m) {
  const bool prefill = s.train.mode == TrainMode::Prefill;
  const int pp = s.pp(), vpp = s.vpp();
  const bool first = stage == 0, last = stage == pp - 1;
  const double h = s.model.hidden_size;
  const double vocab = static_cast<double>(vocab_of(s, o));
  const double embedding_per_rank = vocab * h / s.tp();
  m.pipeline_stage = stage;
  m.stage_layers = static_cast<int>(layers);
  m.parameters = layers * layer_params_per_tp_rank(s, o) + (first ? embedding_per_rank : 0.0);
  if (last) m.parameters += (pp > 1 || untied_of(s, o) ? embedding_per_rank : 0.0) + h;

  const double e = bytes_per_element(s.model.params_dtype);
  const int dp = std::max(1, s.dp());
  const bool distributed = o.distributed_optimizer.value_or(s.ddp.use_distributed_optimizer);
  const bool sharded = s.ddp.shard_parameters;   // ZeRO-3 / FSDP: weights and gradients sharded too
  const double shards = distributed || sharded ? static_cast<double>(dp) * s.cp() : 1.0;
  // Sharded: the GPU's shard plus two gathered layers (the one computing and the one prefetched).
  const double gathered = sharded ? 2.0 * layer_params_per_tp_rank(s, o) : 0.0;
  const double held = sharded ? m.parameters / shards + gathered : m.parameters;
  m.weights_bytes = e * held;
  // FP8 (Transformer Engine, `fp8_work` term): every layer weight also held in FP8 with its
  // transpose for the wgrad GEMM (1 + 1 bytes), cast once per step and kept for its micro-batches.
  // The norms' weights stay in BF16.
  if (s.fp8_enabled() && s.cluster.gpu.fp8_flops > 0 && s.cluster.efficiency.terms.fp8_work)
    m.weights_bytes += 2.0 * (sharded ? 2.0 : layers) * (layer_params_per_tp_rank(s, o) - 2.0 * h);
  if (!prefill) {
    m.gradients_bytes = 4.0 * held;                          // fp32 main grads
    m.optimizer_bytes = 12.0 * m.parameters / shards;        // fp32 main params + Adam m, v
  }

  const double sb = static_cast<double>(s.model.seq_length) / s.cp() * s.train.micro_batch_size;
  const LayerActivations a = layer_activations(s, o);
  const double replicated = s.model.sequence_parallel ? a.tp_replicated_bytes / s.tp()
                                                      : a.tp_replicated_bytes;
  // HyperParallel: the gathered K/V are saved for backward with the attention core (hp_attention_memory.h).
  const double core_attention = a.core_attention_bytes + hp_attention_memory(s).saved_per_layer_bytes;
  const double full_layer = replicated + a.tp_sharded_bytes + core_attention;
  if (prefill) {
    // Forward only: nothing is saved for a backward; one layer's tensors are alive at a time, and
    // every layer of the stage keeps its K and V (the cache the decode reads).
    m.activation_bytes_per_layer = full_layer;
    m.activations_bytes = full_layer;
    m.kv_cache_bytes = layers * e * sb * 2.0 * s.kv_heads_per_tp_rank() * s.head_dim();
  } else if (layers > 0) {
    // Micro-batches in flight on stage k. 1F1B: min(pp - k, m) micro-batches of the stage's layers.
    // Interleaved (vpp chunks): 2 (pp - k - 1) + (vpp - 1) pp + 1 chunks at the peak, Megatron's
    // warm-up (on the first stage pp*vpp + pp - 1: Korthikanti et al. 2022, section 4.2.3, a factor
    // 1 + (pp-1)/(pp*vpp) over L layers).
    const int micro = s.micro_batches() > 0 ? s.micro_batches() : 1;
    double chunks_in_flight = vpp > 1 ? 2.0 * (pp - stage - 1) + static_cast<double>(vpp - 1) * pp + 1
                                      : std::min(pp - stage, micro);
    chunks_in_flight = std::min(chunks_in_flight, static_cast<double>(micro) * vpp);
    const double layers_per_chunk = layers / vpp;
    const double layers_in_flight = chunks_in_flight * layers_per_chunk;
    m.micro_batches_in_flight = layers_in_flight / layers;
    const double input = e * sb * h / (s.model.sequence_parallel ? s.tp() : 1);
    switch (recompute_of(s, o)) {
      case Recompute::None:
        m.activation_bytes_per_layer = full_layer;
        m.activations_bytes = layers_in_flight * full_layer;
        break;
      case Recompute::Selective:
        m.activation_bytes_per_layer = full_layer - core_attention;
        m.activations_bytes = layers_in_flight * m.activation_bytes_per_layer;
        break;
      case Recompute::Full: {
        const double n = std::clamp<double>(s.model.recompute_num_layers, 1.0, std::max(1.0, layers_per_chunk));
        if (s.model.recompute_method == RecomputeMethod::Uniform) {
          // groups of n layers keep their input only; one group is recomputed at a time
          m.activation_bytes_per_layer = input / n;
          m.activations_bytes = layers_in_flight * input / n + n * full_layer;
        } else {
          // block: the first n layers of each chunk keep their input, the others everything
          const double per_chunk = n * input + std::max(0.0, layers_per_chunk - n) * full_layer;
          m.activation_bytes_per_layer = per_chunk / std::max(1.0, layers_per_chunk);
          m.activations_bytes = chunks_in_flight * per_chunk + full_layer;
        }
        break;
      }
    }
  }
  // bf16 logits + the fp32 softmax the vocab-parallel cross entropy keeps, vocab split over TP
  // (prefill: the logits only)
  if (last) m.logits_bytes = (prefill ? e : e + 4.0) * sb * vocab / s.tp();
}

double stage_total_bytes(const MemoryEstimate& m) {
  return m.weights_bytes + m.gradients_bytes + m.optimizer_bytes + m.activations_bytes + m.logits_bytes + m.kv_cache_bytes;
}

}  // namespace

MemoryEstimate estimate_memory(const Scenario& s, const MemoryOptions& o) {
  if (s.tp() <= 0 || s.cp() <= 0 || s.pp() <= 0 || s.vpp() <= 0 || s.model.num_layers <= 0 ||
      s.model.hidden_size <= 0 || s.model.num_attention_heads <= 0 || s.model.seq_length <= 0)
    throw std::invalid_argument(
        "estimate_memory: model sizes and tensor/context/pipeline parallel sizes must be positive");
  const bool prefill = s.train.mode == TrainMode::Prefill;
  const HpAttentionMemory hp = hp_attention_memory(s);
  // Layers per stage: the uneven split's counts, or num_layers / pp on every stage.
  const int p = s.pp();
  std::vector<double> layers(static_cast<std::size_t>(p), static_cast<double>(s.model.num_layers) / p);
  if (uneven_pipeline_split(s.model)) {
    const std::vector<int> counts = stage_layer_counts(s.model);
    layers.assign(counts.begin(), counts.end());
  }
  // The middle stages hold the same layers with fewer micro-batches in flight the later they come:
  // the first, the second and the last stage cover every stage's maximum.
  MemoryEstimate m;
  double best = -1;
  int previous = -1;
  for (int stage : {0, 1, p - 1}) {
    if (stage >= p || stage == previous) continue;
    previous = stage;
    MemoryEstimate st;
    add_stage_items(s, o, stage, layers[static_cast<std::size_t>(stage)], st);
    if (stage_total_bytes(st) > best) {
      best = stage_total_bytes(st);
      m = st;
    }
  }

  CpCommType worst = s.comm_type_for_layer(0);
  double worst_bytes = -1;
  const std::vector<CpCommType> types =
      s.model.cp_comm_type.empty() ? std::vector<CpCommType>{worst} : s.model.cp_comm_type;
  for (CpCommType t : types) {
    const schedule::CpBufferBytes b = cp_buffers(s, t);
    const double peak = prefill ? b.forward_bytes : std::max(b.forward_bytes, b.backward_bytes);
    if (peak > worst_bytes) {
      worst_bytes = peak;
      worst = t;
      m.cp_forward_buffers_bytes = b.forward_bytes;
      m.cp_backward_buffers_bytes = prefill ? 0.0 : b.backward_bytes;
    }
  }
  m.comm_type = to_string(worst);
  if (s.hyperparallel_cp()) {   // cp_comm_type does not apply
    m.cp_forward_buffers_bytes = hp.forward_buffer_bytes;
    m.cp_backward_buffers_bytes = prefill ? 0.0 : hp.backward_buffer_bytes;
    m.comm_type = std::string("hyperparallel ") + to_string(s.hyperparallel.mode(s.cp()));
  }
  m.cp_buffers_bytes = std::max(m.cp_forward_buffers_bytes, m.cp_backward_buffers_bytes);
  m.reserved_bytes = o.reserved_bytes;
  m.total_bytes = m.weights_bytes + m.gradients_bytes + m.optimizer_bytes + m.activations_bytes +
                  m.logits_bytes + m.kv_cache_bytes + m.cp_buffers_bytes + m.reserved_bytes;
  m.capacity_bytes = s.cluster.gpu.memory_bytes;
  m.fits = m.total_bytes <= m.capacity_bytes;
  return m;
}

namespace {

constexpr auto kRecomputeNames = std::to_array<EnumName<Recompute>>(
    {{Recompute::None, "none"}, {Recompute::Selective, "selective"}, {Recompute::Full, "full"}});

}  // namespace

Recompute parse_recompute(const std::string& name) { return parse_enum(kRecomputeNames, name, "recompute mode"); }
const char* to_string(Recompute r) { return name_of(kRecomputeNames, r); }

}  // namespace hcpsim
