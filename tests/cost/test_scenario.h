#pragma once
// A DGX-H100-like scenario built in C++ (no YAML) for the cost and analytic tests.
#include "engine/scenario/scenario.h"

namespace hcpsim::test {

inline Scenario dgx_scenario(int nodes = 1, int gpus_per_node = 8) {
  Scenario s;
  s.name = "test";
  s.cluster.nodes = nodes;
  s.cluster.gpus_per_node = gpus_per_node;
  s.cluster.nics_per_node = gpus_per_node;
  s.cluster.gpu.bf16_flops = 989e12;
  s.cluster.gpu.hbm_Bps = 3.35e12;
  s.cluster.intra_node_bandwidth_Bps = 450e9;
  s.cluster.intra_node_latency_s = 2e-6;
  s.cluster.nic_bandwidth_Bps = 50e9;
  s.cluster.inter_node_latency_s = 5e-6;
  s.model.num_layers = 1;
  s.model.hidden_size = 1024;
  s.model.num_attention_heads = 8;
  s.model.num_query_groups = 8;
  s.model.seq_length = 8192;
  s.model.context_parallel_size = nodes * gpus_per_node;
  s.simulation.backend = "analytic";
  // The closed forms of these tests are those of the nominal model (docs/metrics.md sections 1-3);
  // each term of section 9 has its own test that switches it on.
  s.cluster.efficiency.terms = ModelTerms::all_off();
  return s;
}

}  // namespace hcpsim::test
