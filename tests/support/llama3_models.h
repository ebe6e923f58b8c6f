#pragma once
// Test helper: published dense-model shapes as data, and a Scenario with only the model shape set
// (tests add the sequence length, the parallel layout and the cluster they check).
// Shapes: the Hugging Face config.json of Meta-Llama-3-8B and Meta-Llama-3-70B.
#include "engine/scenario/scenario.h"

namespace hcpsim::test {

struct DenseModelShape {
  int layers;
  int hidden;
  int ffn_hidden;
  int heads;
  int kv_groups;
  int head_dim;
};

inline constexpr DenseModelShape kLlama3_8B{32, 4096, 14336, 32, 8, 128};
inline constexpr DenseModelShape kLlama3_70B{80, 8192, 28672, 64, 8, 128};

inline Scenario scenario_of_shape(const DenseModelShape& m) {
  Scenario s;
  s.model.num_layers = m.layers;
  s.model.hidden_size = m.hidden;
  s.model.ffn_hidden_size = m.ffn_hidden;
  s.model.num_attention_heads = m.heads;
  s.model.num_query_groups = m.kv_groups;
  s.model.kv_channels = m.head_dim;
  return s;
}

}  // namespace hcpsim::test
