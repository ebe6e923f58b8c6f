#pragma once
// Builds small Scenario structs directly in C++ for engine tests (no YAML).
#include <vector>

#include "engine/scenario/scenario.h"

namespace hcpsim::testing {

struct Config {
  int tp = 1, cp = 2;
  std::vector<int> hcp;                       // [A, P] or empty
  std::vector<CpCommType> types{CpCommType::P2P};
  bool causal = true;
  int heads = 4, kv_heads = 4, head_dim = 8;
  std::int64_t seq = 0;                       // 0: 2*cp*4
  int batch = 1;
  int layers = 1;
  int dp = 1;
};

inline Scenario make_scenario(const Config& c) {
  Scenario s;
  s.name = "test";
  s.model.num_layers = c.layers;
  s.model.num_attention_heads = c.heads;
  s.model.num_query_groups = c.kv_heads;
  s.model.kv_channels = c.head_dim;
  s.model.hidden_size = c.heads * c.head_dim;
  s.model.seq_length = c.seq > 0 ? c.seq : 2LL * c.cp * 4;
  s.model.attn_mask_type = c.causal ? MaskType::Causal : MaskType::NoMask;
  s.model.tensor_model_parallel_size = c.tp;
  s.model.context_parallel_size = c.cp;
  s.model.cp_comm_type = c.types;
  s.model.hierarchical_context_parallel_sizes = c.hcp;
  s.train.micro_batch_size = c.batch;
  s.cluster.nodes = 1;
  s.cluster.gpus_per_node = c.tp * c.cp * c.dp;
  s.simulation.layers = c.layers;
  // Byte and FLOP sums of these tests are the nominal schedule's (the memory_operators term prices
  // TE's kernels differently; its own test is in tests/graph/test_graph_accounting.cpp).
  s.cluster.efficiency.terms = ModelTerms::all_off();
  return s;
}

}  // namespace hcpsim::testing
