#pragma once
// DeepSeek Sparse Attention's lightning indexer, for the reference executor: which keys each query
// keeps. score(t, j) = sum_h w(t, h) * relu(q_I(t, h) . k_I(j)) over the indexer heads h, for the keys
// j a query may see (j <= its global position when causal); each query keeps the top-k of them
// (ties: the lower key index). The same function serves the ranks (their query slice against the
// gathered keys) and the dense check (all queries), so the two select the same keys.
#include <cstdint>

#include "engine/reference/tensor.h"

namespace hcpsim::reference {

// q_index [B][Lq][n][d], k_index [B][Lk][1][d], weights [B][Lq][n][1]; query row i is global
// position q_pos0 + i. Returns keep [B][Lq][1][Lk] with 1 for kept keys, 0 elsewhere.
template <typename T>
Tensor<T> indexer_keep(const Tensor<T>& q_index, const Tensor<T>& k_index, const Tensor<T>& weights,
                       std::int64_t q_pos0, std::int64_t topk, bool causal);

}  // namespace hcpsim::reference
