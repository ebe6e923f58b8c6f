#pragma once
// The NCCL calls of the whole step outside the layer graph (DP and parameter-sharding collectives,
// pipeline sends), each alone: its time on the network model, the share of the GPU its kernels take
// from compute while it runs, and the host's launch cost. Used by step_model.cpp and
// parameter_sharding.cpp.
#include <vector>

#include "engine/cost/cost_model.h"
#include "engine/cost/route.h"
#include "engine/graph/task_graph.h"

namespace hcpsim::step {

// Seconds of one ring collective (`kind`) over `group` on the DP x CP communicator, CommOp's
// bytes_per_rank; 0 for a group of one or no bytes.
double ring_s(const RouteModel& routes, TaskKind kind, const std::vector<int>& group, double bytes_per_rank);

// Fraction of a GPU the NCCL kernels of one call take from compute while they run
// (CostModel::comm_compute_load): a collective over `ranks` of `bytes_per_rank`, or (SendRecv) a
// send of `bytes_per_rank` from ranks[0] to ranks[1].
double comm_load(const CostModel& cost, TaskKind kind, const std::vector<int>& ranks, double bytes_per_rank);

// Host overhead of launching one NCCL call outside a ring (CostModel::comm_overhead_s).
double launch_s(const CostModel& cost, TaskKind kind);

}  // namespace hcpsim::step
