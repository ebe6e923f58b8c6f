#pragma once
// HyperParallel's DSA CP (DeepSeek Sparse Attention; docs/schedules.md "HyperParallel"): Colossal
// only — query-side tensors stay sequence-sharded, key-side tensors (K, V, the indexer key) are
// all-gathered; indexer, sparse attention over the top-k keys of each query, indexer loss.
#include "engine/schedule/schedule_context.h"

namespace hcpsim::schedule {

// `with_projections`: AsyncDSA in whole-layer forward — adds the Q, K, V and indexer-key projection
// GEMMs and starts each key-side all-gather right after the projection that produces its input
// (HyperParallel's handoff modules); the indexer waits for the indexer key, the sparse attention for
// K and V. Without it the gathers run synchronously before the indexer.
void build_hp_dsa_forward(ScheduleContext& ctx, bool with_projections = false);
void build_hp_dsa_backward(ScheduleContext& ctx);

// Exact (query, key) pairs of a rank's sparse attention: sum over its queries t (global positions
// q0 .. q0+len-1) of min(topk, keys t may see).
double dsa_sparse_pairs(std::int64_t q0, std::int64_t len, std::int64_t S, std::int64_t topk, bool causal);

}  // namespace hcpsim::schedule
