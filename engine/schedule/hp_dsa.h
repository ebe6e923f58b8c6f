#pragma once
// HyperParallel's DSA CP (DeepSeek Sparse Attention; docs/schedules.md "HyperParallel"): Colossal
// only — query-side tensors stay sequence-sharded, key-side tensors (K, V, the indexer key) are
// all-gathered; indexer, sparse attention over the top-k keys of each query, indexer loss.
#include "engine/schedule/schedule_context.h"

namespace hcpsim::schedule {

void build_hp_dsa_forward(ScheduleContext& ctx);
void build_hp_dsa_backward(ScheduleContext& ctx);

// Exact (query, key) pairs of a rank's sparse attention: sum over its queries t (global positions
// q0 .. q0+len-1) of min(topk, keys t may see).
double dsa_sparse_pairs(std::int64_t q0, std::int64_t len, std::int64_t S, std::int64_t topk, bool causal);

}  // namespace hcpsim::schedule
