#pragma once
// ddp.shard_parameters (ZeRO-3 / FSDP full sharding) in the composed step: what the per-layer
// parameter all-gathers and gradient reduce-scatters add to one chunk's forward and backward.
// Model and formulas: docs/planning.md ("Parameter sharding").
#include "engine/cost/cost_model.h"
#include "engine/cost/route.h"
#include "engine/layout/rank_layout.h"
#include "engine/scenario/scenario.h"
#include "engine/step/step_model.h"
#include "engine/step/step_work.h"

namespace hcpsim::step {

struct ShardingCost {
  double gather_s = 0;     // one layer's parameter all-gather alone, NCCL launch included
  double reduce_s = 0;     // one layer's gradient reduce-scatter alone, NCCL launch included
  double forward_s = 0;    // added to one chunk's forward: exposed gathers + compute they slow down
  double backward_s = 0;   // added to one chunk's backward (recomputation included), alike
};

// `layer_f_s` / `layer_b_s`: one layer's forward and backward compute (elementwise kernels included,
// the recomputed forward in the backward); `gathers_in_backward`: parameter all-gathers a layer
// needs in its backward (1, or 2 when its forward is recomputed); `layers`: layers per chunk.
ShardingCost parameter_sharding_s(const Scenario& s, const CostModel& cost, const RouteModel& routes,
                                  const RankLayout& layout, const StepWork& work, double layer_f_s, double layer_b_s,
                                  int gathers_in_backward, int layers);

}  // namespace hcpsim::step
