#pragma once
// NCCL behaviour the cost model's terms need (docs/metrics.md section 9): the achieved-bandwidth
// curve of each NCCL op per link class (`bandwidth_curves`) and the number of channels (CTAs, one
// SM each) NCCL runs for a call (`comm_compute_interference`).
#include <string>

#include "engine/cost/cost_model.h"
#include "engine/graph/task_graph.h"

namespace hcpsim {

// eff(m) = plateau_ratio * link_plateau * m / (m + half_bytes), m = one flow's message in bytes.
// `plateau_ratio` multiplies the scenario's send/recv plateau (efficiency.intra_node_link or
// inter_node_link), so the scenario still sets the link's level and the op sets its shape.
struct BandwidthCurve {
  double plateau_ratio = 1.0;
  double half_bytes = 1 << 20;
};

// Default curve of `op` (SendRecv, AllToAll, AllGather, ReduceScatter, AllReduce) on link class `c`;
// `nvls`: the NVSwitch reduces in the switch (NVLink SHARP), which lifts the intra-node all_reduce.
BandwidthCurve nccl_bandwidth_curve(TaskKind op, LinkClass c, bool nvls = false);

// NVLink plateau of a GPU family relative to the scenario's intra_node_link plateau (which
// stands for Hopper): Ampere's NVLink 3 reaches less of its port rate in nccl-tests, fitted on the
// fit case azure-nda100v4-allreduce-8gpu-1g (docs/metrics.md 9.2 and 9.6); Blackwell's NVLink 5 by
// NCCL's per-link bandwidths (40.0 of 50 GB/s against Hopper's 20.6 of 25); 1 for every other GPU.
double nvlink_family_ratio(const std::string& gpu_name);

// Channels NCCL runs for one call of `op` on `c` moving `message_bytes` per flow among
// `group_size` ranks: one per NCCL chunk of the message, at least 1, at most the op's limit.
int nccl_channels(TaskKind op, LinkClass c, double message_bytes, int group_size);

}  // namespace hcpsim
