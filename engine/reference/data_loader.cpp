#include "engine/reference/data_loader.h"

namespace hcpsim::reference {

namespace {

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

bool is_kv(InputTensor w) { return w == InputTensor::K || w == InputTensor::V; }

int total_kv_heads(const Scenario& s) {
  return s.model.num_query_groups > 0 ? s.model.num_query_groups : s.model.num_attention_heads;
}

bool is_index(InputTensor w) { return w == InputTensor::IndexQ || w == InputTensor::IndexK || w == InputTensor::IndexW; }

// Heads and head dim of an indexer input.
std::int64_t index_heads(const Scenario& s, InputTensor w) { return w == InputTensor::IndexK ? 1 : s.model.dsa.index_n_heads; }
std::int64_t index_dim(const Scenario& s, InputTensor w) { return w == InputTensor::IndexW ? 1 : s.model.dsa.index_head_dim; }

}  // namespace

double input_value(std::uint64_t seed, int layer, InputTensor which, std::int64_t batch, std::int64_t token,
                   std::int64_t head, std::int64_t dim) {
  std::uint64_t h = mix(seed);
  for (std::uint64_t v : {static_cast<std::uint64_t>(layer), static_cast<std::uint64_t>(which),
                          static_cast<std::uint64_t>(batch), static_cast<std::uint64_t>(token),
                          static_cast<std::uint64_t>(head), static_cast<std::uint64_t>(dim)})
    h = mix(h ^ v);
  return static_cast<double>(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

Tensor<double> global_input(const Scenario& s, std::uint64_t seed, int layer, InputTensor which) {
  const std::int64_t H = is_index(which) ? index_heads(s, which) : is_kv(which) ? total_kv_heads(s) : s.model.num_attention_heads;
  const std::int64_t D = is_index(which) ? index_dim(s, which) : s.head_dim();
  Tensor<double> t(s.train.micro_batch_size, s.model.seq_length, H, D);
  for (std::int64_t b = 0; b < t.B; ++b)
    for (std::int64_t l = 0; l < t.L; ++l)
      for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t d = 0; d < D; ++d) t.at(b, l, h, d) = input_value(seed, layer, which, b, l, h, d);
  return t;
}

std::int64_t global_token(std::int64_t l, int cp_index, int cp, std::int64_t s_local) {
  const std::int64_t cs = s_local / 2;
  return l < cs ? cp_index * cs + l : (2LL * cp - 1 - cp_index) * cs + (l - cs);
}

std::int64_t global_token_of(const Scenario& s, std::int64_t l, int cp_index) {
  const std::int64_t sl = s.model.seq_length / s.cp();
  if (s.hyperparallel_cp() || s.distflashattn_cp()) return cp_index * sl + l;
  return global_token(l, cp_index, s.cp(), sl);
}

std::int64_t global_q_head(const Scenario& s, int tp_rank, std::int64_t j) {
  return static_cast<std::int64_t>(tp_rank) * s.heads_per_tp_rank() + j;
}

std::int64_t global_kv_head(const Scenario& s, int tp_rank, std::int64_t j) {
  const int g = total_kv_heads(s);
  if (g >= s.tp()) return static_cast<std::int64_t>(tp_rank) * s.kv_heads_per_tp_rank() + j;
  const int ratio = s.model.num_attention_heads / g;   // query heads per KV head
  return global_q_head(s, tp_rank, 0) / ratio;
}

template <typename T>
Tensor<T> rank_input(const Scenario& s, const RankCoord& c, std::uint64_t seed, int layer, InputTensor which) {
  const std::int64_t sl = s.model.seq_length / s.cp();
  const std::int64_t H = is_index(which) ? index_heads(s, which) : is_kv(which) ? s.kv_heads_per_tp_rank() : s.heads_per_tp_rank();
  const std::int64_t D = is_index(which) ? index_dim(s, which) : s.head_dim();
  Tensor<T> t(s.train.micro_batch_size, sl, H, D);
  for (std::int64_t b = 0; b < t.B; ++b)
    for (std::int64_t l = 0; l < sl; ++l) {
      const std::int64_t tok = global_token_of(s, l, c.cp);
      for (std::int64_t h = 0; h < H; ++h) {
        const std::int64_t gh = is_index(which) ? h : is_kv(which) ? global_kv_head(s, c.tp, h) : global_q_head(s, c.tp, h);
        for (std::int64_t d = 0; d < D; ++d)
          t.at(b, l, h, d) = static_cast<T>(input_value(seed, layer, which, b, tok, gh, d));
      }
    }
  return t;
}

template Tensor<double> rank_input<double>(const Scenario&, const RankCoord&, std::uint64_t, int, InputTensor);
template Tensor<float> rank_input<float>(const Scenario&, const RankCoord&, std::uint64_t, int, InputTensor);

}  // namespace hcpsim::reference
