#include "engine/graph/attention_work.h"

namespace hcpsim {

double attention_pairs(MaskSection m, std::int64_t q_len, std::int64_t kv_len) {
  const double q = static_cast<double>(q_len), k = static_cast<double>(kv_len);
  switch (m) {
    case MaskSection::Diagonal:
    case MaskSection::Causal:
      return q * (q + 1) / 2;
    case MaskSection::BottomRight:   // row i (0-based) sees kv_len - q_len + i + 1 keys
      return q * (k - q) + q * (q + 1) / 2;
    case MaskSection::Lower:
    case MaskSection::Upper:
    case MaskSection::Full:
      return q * k;
  }
  return 0;
}

AttentionShape attention_shape(int batch, std::int64_t q_len, std::int64_t kv_len, int heads, int kv_heads,
                               int head_dim_qk, int head_dim_v, MaskSection section) {
  return {.batch = batch,
          .q_len = q_len,
          .kv_len = kv_len,
          .heads = heads,
          .kv_heads = kv_heads,
          .head_dim_qk = head_dim_qk,
          .head_dim_v = head_dim_v,
          .section = section,
          .pairs = attention_pairs(section, q_len, kv_len)};
}

double attention_flops(const AttentionShape& a, Pass pass) {
  const double per_pair = pass == Pass::Forward ? static_cast<double>(a.head_dim_qk) + a.head_dim_v
                                                : 3.0 * a.head_dim_qk + 2.0 * a.head_dim_v;
  return 2.0 * a.batch * a.heads * per_pair * a.pairs;
}

}  // namespace hcpsim
