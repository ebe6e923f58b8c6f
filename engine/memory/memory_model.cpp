#include "engine/memory/memory_model.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace hcpsim {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
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

// Transient CP attention buffers of one layer (docs/schedules.md "Memory the schedules keep"), forward and backward, bytes.
struct CpBuffers {
  double forward_bytes = 0;
  double backward_bytes = 0;
};

CpBuffers cp_buffers(const Scenario& s, CpCommType type) {
  CpBuffers out;
  const int cp = s.cp();
  if (cp <= 1) return out;
  const double e = bytes_per_element(s.model.params_dtype);
  const double sb = static_cast<double>(s.model.seq_length) / cp * s.train.micro_batch_size;
  const double d = s.head_dim();
  const double t_q = sb * s.heads_per_tp_rank() * d * e;
  const double t_o = t_q;
  const double m_kv = sb * s.kv_heads_per_tp_rank() * 2.0 * d * e;   // T_k + T_v
  const double lse = sb * s.heads_per_tp_rank() * kLseBytes;
  const double a2a_staging = t_q + m_kv + t_o;   // one staging copy per exchanged tensor
  switch (type) {
    case CpCommType::P2P:
      out.forward_bytes = cp * m_kv + cp * (t_o + lse);   // R KV buffers + R partial outputs/LSEs
      out.backward_bytes = 2.0 * (2.0 * m_kv);            // KV + dKV ping-pong
      break;
    case CpCommType::A2A:
      out.forward_bytes = a2a_staging;
      out.backward_bytes = a2a_staging;
      break;
    case CpCommType::AllGather:
      out.forward_bytes = cp * m_kv;                      // full K/V
      out.backward_bytes = 2.0 * cp * m_kv;               // re-gathered K/V + full-length dK/dV
      break;
    case CpCommType::A2AP2P: {
      const auto& hs = s.model.hierarchical_context_parallel_sizes;
      const int ring = hs.size() == 2 && hs[1] > 0 ? hs[1] : cp;
      out.forward_bytes = a2a_staging + ring * m_kv + ring * (t_o + lse);
      out.backward_bytes = a2a_staging + 2.0 * (2.0 * m_kv);
      break;
    }
  }
  return out;
}

}  // namespace

double model_parameter_count(const Scenario& s, const MemoryOptions& o) {
  const double h = s.model.hidden_size;
  const double d = s.head_dim();
  const double attention = 2.0 * h * s.model.num_attention_heads * d + 2.0 * h * kv_heads_of(s) * d;
  const double mlp = (o.gated_mlp ? 3.0 : 2.0) * h * ffn_of(s);
  const double layer = attention + mlp + 2.0 * h;
  const double embeddings = (o.untied_embeddings ? 2.0 : 1.0) * static_cast<double>(o.vocab_size) * h;
  return s.model.num_layers * layer + embeddings + h;   // + final norm
}

MemoryEstimate estimate_memory(const Scenario& s, const MemoryOptions& o) {
  if (s.tp() <= 0 || s.cp() <= 0 || s.pp() <= 0 || s.model.num_layers <= 0 ||
      s.model.hidden_size <= 0 || s.model.num_attention_heads <= 0 || s.model.seq_length <= 0)
    throw std::invalid_argument(
        "estimate_memory: model sizes and tensor/context/pipeline parallel sizes must be positive");
  MemoryEstimate m;
  const double layers_per_stage = static_cast<double>(s.model.num_layers) / s.pp();
  const double h = s.model.hidden_size;
  const double embedding_per_rank = static_cast<double>(o.vocab_size) * h / s.tp();
  // First pipeline stage: its layers + the input embedding; with pp = 1 also the output layer.
  m.parameters = layers_per_stage * layer_params_per_tp_rank(s, o) + embedding_per_rank;
  if (s.pp() == 1) m.parameters += (o.untied_embeddings ? embedding_per_rank : 0.0) + h;

  const double e = bytes_per_element(s.model.params_dtype);
  const int dp = std::max(1, s.dp());
  const double shards = o.distributed_optimizer ? static_cast<double>(dp) * s.cp() : 1.0;
  m.weights_bytes = e * m.parameters;
  m.gradients_bytes = 4.0 * m.parameters;                  // fp32 main grads
  m.optimizer_bytes = 12.0 * m.parameters / shards;        // fp32 main params + Adam m, v

  const LayerActivations a = layer_activations(s, o);
  const double replicated = s.model.sequence_parallel ? a.tp_replicated_bytes / s.tp()
                                                      : a.tp_replicated_bytes;
  const double full_layer = replicated + a.tp_sharded_bytes + a.core_attention_bytes;
  // 1F1B keeps pp micro-batches of L/pp layers in flight on the first stage: L layers in all.
  const double layers_in_flight = s.model.num_layers;
  switch (o.recompute) {
    case Recompute::None:
      m.activation_bytes_per_layer = full_layer;
      m.activations_bytes = layers_in_flight * full_layer;
      break;
    case Recompute::Selective:
      m.activation_bytes_per_layer = full_layer - a.core_attention_bytes;
      m.activations_bytes = layers_in_flight * m.activation_bytes_per_layer;
      break;
    case Recompute::Full: {
      const double sb = static_cast<double>(s.model.seq_length) / s.cp() * s.train.micro_batch_size;
      const double input = e * sb * h / (s.model.sequence_parallel ? s.tp() : 1);
      m.activation_bytes_per_layer = input;
      m.activations_bytes = layers_in_flight * input + full_layer;   // + one recomputed layer
      break;
    }
  }
  if (s.pp() == 1) {
    const double sb = static_cast<double>(s.model.seq_length) / s.cp() * s.train.micro_batch_size;
    // bf16 logits + the fp32 softmax the vocab-parallel cross-entropy keeps, vocab split over TP
    m.logits_bytes = (e + 4.0) * sb * static_cast<double>(o.vocab_size) / s.tp();
  }

  CpCommType worst = s.comm_type_for_layer(0);
  double worst_bytes = -1;
  const std::vector<CpCommType> types =
      s.model.cp_comm_type.empty() ? std::vector<CpCommType>{CpCommType::P2P} : s.model.cp_comm_type;
  for (CpCommType t : types) {
    const CpBuffers b = cp_buffers(s, t);
    const double peak = std::max(b.forward_bytes, b.backward_bytes);
    if (peak > worst_bytes) {
      worst_bytes = peak;
      worst = t;
      m.cp_forward_buffers_bytes = b.forward_bytes;
      m.cp_backward_buffers_bytes = b.backward_bytes;
    }
  }
  m.cp_buffers_bytes = std::max(m.cp_forward_buffers_bytes, m.cp_backward_buffers_bytes);
  m.comm_type = to_string(worst);
  m.reserved_bytes = o.reserved_bytes;
  m.total_bytes = m.weights_bytes + m.gradients_bytes + m.optimizer_bytes + m.activations_bytes +
                  m.logits_bytes + m.cp_buffers_bytes + m.reserved_bytes;
  m.capacity_bytes = s.cluster.gpu.memory_bytes;
  m.fits = m.total_bytes <= m.capacity_bytes;
  return m;
}

std::vector<std::string> describe_memory(const MemoryEstimate& m) {
  std::vector<std::string> lines;
  auto add = [&lines](const char* what, double bytes) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%-22s %9.2f GiB", what, bytes / kGiB);
    lines.emplace_back(buf);
  };
  add("weights", m.weights_bytes);
  add("gradients (fp32)", m.gradients_bytes);
  add("optimizer states", m.optimizer_bytes);
  add("activations", m.activations_bytes);
  add("logits + loss", m.logits_bytes);
  add("cp attention buffers", m.cp_buffers_bytes);
  add("reserved", m.reserved_bytes);
  add("total", m.total_bytes);
  add("capacity", m.capacity_bytes);
  lines.emplace_back(m.fits ? "fits: yes" : "fits: NO (exceeds GPU memory)");
  return lines;
}

Recompute parse_recompute(const std::string& name) {
  if (name == "none") return Recompute::None;
  if (name == "selective") return Recompute::Selective;
  if (name == "full") return Recompute::Full;
  throw std::invalid_argument("unknown recompute mode '" + name + "' (valid: none, selective, full)");
}

const char* to_string(Recompute r) {
  switch (r) {
    case Recompute::None: return "none";
    case Recompute::Selective: return "selective";
    case Recompute::Full: return "full";
  }
  return "?";
}

}  // namespace hcpsim
