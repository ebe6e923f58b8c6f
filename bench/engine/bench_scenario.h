#pragma once
// The scenario the engine benchmarks build: Llama-3-70B attention (hidden 8192, 64 query heads,
// 8 KV groups, head dim 128) over 1 Mi tokens, `cp` ranks on cp/8 nodes of 8 GPUs, 4 simulated
// layers. Hcp1024 of the targets is bench_scenario(1024, {8, 128}, "a2a+p2p").
#include <string_view>
#include <utility>
#include <vector>

#include "engine/scenario/scenario.h"
#include "engine/schedule/schedule_descriptor.h"

namespace hcpsim::bench {

// `comm_type`: the cp_comm_type name ("p2p", "a2a+p2p", ...).
inline Scenario bench_scenario(int cp, std::vector<int> hierarchical, std::string_view comm_type) {
  Scenario s;
  s.name = "bench";
  s.model.num_layers = 4;
  s.model.hidden_size = 8192;
  s.model.num_attention_heads = 64;
  s.model.num_query_groups = 8;
  s.model.kv_channels = 128;
  s.model.seq_length = 1LL << 20;
  s.model.context_parallel_size = cp;
  s.model.cp_comm_type = {schedule::schedule_named(comm_type).kind};
  s.model.hierarchical_context_parallel_sizes = std::move(hierarchical);
  s.cluster.nodes = cp / 8;
  s.cluster.gpus_per_node = 8;
  s.simulation.layers = 4;
  return s;
}

}  // namespace hcpsim::bench
