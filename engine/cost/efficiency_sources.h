#pragma once
// The cost model's efficiency sources: for attention (forward, backward), GEMMs, memory-bound ops,
// each link class and the term parameters, the value the model uses and where it came from
// (docs/metrics.md "Where each efficiency comes from"). What `simulate -v` lists and the JSON
// report's `efficiency_sources` holds.
#include "engine/cost/cost_model.h"
#include "engine/cost/efficiency_source.h"

namespace hcpsim {

// One entry per quantity, in a fixed order: attention_forward, attention_backward, gemm, memory,
// intra_node_link, inter_node_link, comm_hbm_interference, nccl_launch_s, ring_step_sync_s.
EfficiencySources efficiency_sources(const CostModel& cost);

}  // namespace hcpsim
