// Per layer and micro-batch, on the DP x CP group's NCCL stream (one communicator, so its calls run
// one after the other): a parameter all-gather before the forward, `gathers_in_backward` before the
// backward (the recomputed forward gathers again: FSDP frees the gathered parameters after every
// forward, and the checkpointed recomputation calls the sharded layer's forward anew), and a gradient
// reduce-scatter after it. Each call of layer i + 1 is issued while layer i computes (FSDP's
// prefetch), so per chunk of N layers:
//
//   forward  = g + (N - 1) * ( max(0, g - f) + load_g * min(g, f) )
//   backward = k*g + r + (N - 1) * ( max(0, c - b) + load_c * min(c, b) ),   c = k*g + r
//
// g, r: one layer's all-gather and reduce-scatter alone; f, b: one layer's forward and backward
// compute; load: the share of the GPU the NCCL kernels take (comm_compute_interference), load_c the
// time-weighted mean of the gathers' and the reduction's. The first layer's gathers and the last
// layer's reduction have no compute to hide behind.
#include "engine/step/parameter_sharding.h"

#include <algorithm>

#include "engine/step/step_collectives.h"

namespace hcpsim::step {

ShardingCost parameter_sharding_s(const Scenario& s, const CostModel& cost, const RouteModel& routes,
                                  const RankLayout& layout, const StepWork& work, double layer_f_s, double layer_b_s,
                                  int gathers_in_backward, int layers) {
  ShardingCost c;
  if (!s.ddp.shard_parameters || layers < 1) return c;
  const auto& group = layout.group_of(GroupKind::DP_CP, 0);
  const double g_ring = ring_s(routes, TaskKind::AllGather, group, work.layer_param_gather_bytes);
  const double r_ring = ring_s(routes, TaskKind::ReduceScatter, group, work.layer_grad_reduce_bytes);
  if (g_ring <= 0 && r_ring <= 0) return c;   // one rank holds the whole model
  c.gather_s = g_ring + launch_s(cost, TaskKind::AllGather);
  c.reduce_s = r_ring + launch_s(cost, TaskKind::ReduceScatter);
  const double load_g = comm_load(cost, TaskKind::AllGather, group, work.layer_param_gather_bytes);
  const double load_r = comm_load(cost, TaskKind::ReduceScatter, group, work.layer_grad_reduce_bytes);
  const double hidden = layers - 1;
  const double g = c.gather_s, f = layer_f_s;
  c.forward_s = g + hidden * (std::max(0.0, g - f) + load_g * std::min(g, f));
  if (s.train.mode == TrainMode::Train) {
    const double k = std::max(1, gathers_in_backward);
    const double comm = k * g + c.reduce_s, b = layer_b_s;
    const double load_c = (k * g * load_g + c.reduce_s * load_r) / comm;
    c.backward_s = k * g + c.reduce_s + hidden * (std::max(0.0, comm - b) + load_c * std::min(comm, b));
  }
  return c;
}

}  // namespace hcpsim::step
