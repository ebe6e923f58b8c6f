#pragma once
// Synthetic training data for the reference executor: every value of Q, K, V and dO is a function
// of (seed, layer, tensor, batch, GLOBAL token, GLOBAL head, dim), so the dense single-device
// problem and every rank's shard agree. Sharding follows Megatron's data loader (docs/schedules.md "Data layout"): CP
// index i keeps chunks C_i and C_{2cp-1-i} of the 2*cp chunks; TP rank t keeps its head slice
// (query heads [t*h_t, (t+1)*h_t); KV heads [t*g_t, ...) or, when g < tp, the one KV head of its
// query heads).
#include <cstdint>

#include "engine/layout/rank_layout.h"
#include "engine/reference/tensor.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::reference {

// IndexQ, IndexK, IndexW: DSA's indexer query [n_I heads][d_I], key [1 head][d_I] and per-head weights
// [n_I][1] (model.dsa); replicated over TP ranks.
enum class InputTensor { Q = 0, K = 1, V = 2, DOut = 3, IndexQ = 4, IndexK = 5, IndexW = 6 };

// Value in [-1, 1] from a hash of the coordinates.
double input_value(std::uint64_t seed, int layer, InputTensor which, std::int64_t batch, std::int64_t token,
                   std::int64_t head, std::int64_t dim);

// Whole-sequence tensor on one device: [b][S][heads][d].
Tensor<double> global_input(const Scenario& s, std::uint64_t seed, int layer, InputTensor which);

// Global token position of local token l on CP index i (dual-chunk layout); s_local = S/cp.
std::int64_t global_token(std::int64_t l, int cp_index, int cp, std::int64_t s_local);
// The scenario's sharding: dual-chunk (Megatron's loader), or contiguous slices [i*s, (i+1)*s) with
// a `hyperparallel:` section (HyperParallel gives each CP rank its own slice of the sequence) or with
// cp_comm_type dfa (DistFlashAttn: one chunk per CP rank).
std::int64_t global_token_of(const Scenario& s, std::int64_t l, int cp_index);
// Global query head of local head j on TP rank t; global KV head of local KV head j.
std::int64_t global_q_head(const Scenario& s, int tp_rank, std::int64_t j);
std::int64_t global_kv_head(const Scenario& s, int tp_rank, std::int64_t j);

// The shard a rank receives from the data loader: [b][s][h_t or g_t][d].
template <typename T>
Tensor<T> rank_input(const Scenario& s, const RankCoord& c, std::uint64_t seed, int layer, InputTensor which);

}  // namespace hcpsim::reference
