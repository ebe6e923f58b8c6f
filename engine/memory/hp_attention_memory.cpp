#include "engine/memory/hp_attention_memory.h"

namespace hcpsim {

HpAttentionMemory hp_attention_memory(const Scenario& s) {
  HpAttentionMemory m;
  const int cp = s.cp();
  if (!s.hyperparallel_cp() || cp <= 1) return m;
  const auto& hp = s.hyperparallel;
  const int u = hp.ulysses(cp), co = cp / u;
  const double e = bytes_per_element(s.model.params_dtype);
  const double sb = static_cast<double>(s.model.seq_length) / cp * s.train.micro_batch_size;
  const double d = s.head_dim();
  const double t_q = sb * s.heads_per_tp_rank() * d * e;       // local Q (= O) of one rank
  const double m_kv = sb * s.kv_heads_per_tp_rank() * 2.0 * d * e;   // local K + V
  // After the all-to-all a rank holds u*s tokens of h/u heads: the same bytes as its local shard.
  const double staging = u > 1 ? 2.0 * t_q + m_kv : 0.0;     // one staging copy of Q, K, V, O
  m.saved_per_layer_bytes = (co - 1) * m_kv;                   // gathered K/V beyond the local shard
  if (hp.load_balance) m.saved_per_layer_bytes += t_q / 2 + t_q / 2;   // peer's Q half + its output half
  m.forward_buffer_bytes = staging + (co > 1 ? co * m_kv : 0.0);       // gather receive buffer before reorder
  m.backward_buffer_bytes = staging + (co > 1 ? 2.0 * co * m_kv : 0.0);  // full dK/dV + reduce-scatter staging
  return m;
}

}  // namespace hcpsim
