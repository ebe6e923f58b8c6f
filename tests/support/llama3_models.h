#pragma once
// Test helper: published dense-model shapes as data, and a Scenario with only the model shape set
// (tests add the sequence length, the parallel layout and the cluster they check).
// Shapes: the Hugging Face config.json of Meta-Llama-3-8B, Meta-Llama-3-70B and Llama-2-7B.
#include <string>

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
inline constexpr DenseModelShape kLlama2_7B{32, 4096, 11008, 32, 32, 128};

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

// LLaMA-7B (MHA), 32K tokens as cp 8 over one 8-GPU node, no TP, 32000-token vocabulary, analytic:
// DistFlashAttn's one-box set-up, for the step tests that price work around attention.
inline Scenario llama7b_cp8_one_node(const std::string& name) {
  Scenario s = scenario_of_shape(kLlama2_7B);
  s.name = name;
  s.model.seq_length = 32768;
  s.model.context_parallel_size = 8;
  s.model.vocab_size = 32000;
  s.cluster.nodes = 1;
  s.cluster.gpus_per_node = 8;
  s.simulation.backend = "analytic";
  return s;
}

}  // namespace hcpsim::test
