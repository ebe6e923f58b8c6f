// HyperParallel in the memory model: the K/V all-gathered over the Colossal group are saved for
// backward with every layer, (co-1) * M_kv beyond the local shard; full recomputation drops them.
#include <gtest/gtest.h>

#include "engine/memory/hp_attention_memory.h"
#include "engine/memory/memory_model.h"

namespace hcpsim {
namespace {

// Llama-3-8B-like, cp = 16 on two 8-GPU nodes, 128K tokens.
Scenario hp(int u) {
  Scenario s;
  s.model.num_layers = 32;
  s.model.hidden_size = 4096;
  s.model.ffn_hidden_size = 14336;
  s.model.num_attention_heads = 32;
  s.model.num_query_groups = 8;
  s.model.kv_channels = 128;
  s.model.seq_length = 131072;
  s.model.context_parallel_size = 16;
  s.cluster.nodes = 2;
  s.cluster.gpus_per_node = 8;
  s.hyperparallel.enabled = true;
  s.hyperparallel.ulysses_degree = u;
  return s;
}

TEST(HpMemory, GatheredKvIsSavedPerLayer) {
  const double m_kv = 131072.0 / 16 * 8 * 2 * 128 * 2;   // local K + V of one rank, bf16
  for (int u : {1, 2, 4, 8}) {
    const int co = 16 / u;
    const HpAttentionMemory m = hp_attention_memory(hp(u));
    EXPECT_DOUBLE_EQ(m.saved_per_layer_bytes, (co - 1) * m_kv) << u;
    EXPECT_DOUBLE_EQ(estimate_memory(hp(u)).activation_bytes_per_layer -
                         estimate_memory(hp(8)).activation_bytes_per_layer,
                     (co - 1 - 1) * m_kv)
        << u;   // relative to u = 8 (co = 2)
  }
  EXPECT_DOUBLE_EQ(m_kv, 32.0 * 1024 * 1024);   // 32 MiB: the docs/hyperparallel.md table
  // The same scenario without the section saves no gathered K/V.
  Scenario megatron = hp(1);
  megatron.hyperparallel = {};
  EXPECT_DOUBLE_EQ(hp_attention_memory(megatron).saved_per_layer_bytes, 0.0);
  EXPECT_GT(estimate_memory(hp(1)).activations_bytes, estimate_memory(megatron).activations_bytes + 14.0 * 1024 * 1024 * 1024);
}

TEST(HpMemory, FullRecomputationDropsTheGatheredKv) {
  Scenario a = hp(1), b = hp(8);
  a.model.recompute_granularity = b.model.recompute_granularity = RecomputeGranularity::Full;
  // Only the group being recomputed holds a full layer: the difference is one layer's extra, not 32.
  const double diff = estimate_memory(a).activations_bytes - estimate_memory(b).activations_bytes;
  const double m_kv = 32.0 * 1024 * 1024;
  EXPECT_DOUBLE_EQ(diff, 14 * m_kv);
  EXPECT_EQ(estimate_memory(a).comm_type, "hyperparallel colossal");
}

}  // namespace
}  // namespace hcpsim
