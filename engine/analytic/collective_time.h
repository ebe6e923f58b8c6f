#pragma once
// How long one collective takes when nothing else uses the links (analytic model; formulas in
// docs/metrics.md "Collectives"). SendRecv transfers are timed one by one by RouteModel.
#include <vector>

#include "engine/cost/nccl_tuning.h"
#include "engine/cost/route.h"
#include "engine/graph/task_graph.h"

namespace hcpsim {

// All-to-all with equal splits: every member sends bytes_per_rank/n to every other member at once.
// Flows of one collective that cross the same link (GPU port or NIC, each direction) add up on it;
// time = max over links of (latency + load / (bandwidth * link_efficiency(piece))). Seconds.
double alltoall_seconds(const CommOp& op, const RouteModel& routes);

// NCCL ring all_gather / reduce_scatter (n-1 steps of one shard) and all_reduce (2(n-1) steps of
// bytes_per_rank/n) over the members in group order; each step takes as long as its slowest hop
// (RouteModel::ring_hops: with the `nccl_rails` term an inter-node hop runs over several NICs).
// With the `nccl_ring_latency` term: NCCL's latency once plus the slowest hop of the pipeline,
// max over hops of (route latency + moved_bytes / (bandwidth * hop_efficiency)). Seconds.
double ring_collective_seconds(const CommOp& op, const RouteModel& routes);

// Routes of the ring hops members[i] -> members[i+1] of an AllGather / ReduceScatter / AllReduce,
// with as many channels as NCCL runs for its chunk (RouteModel::ring_hops). Shared with the simgrid
// lowering so that both backends put the same rails on a hop.
std::vector<Route> ring_collective_hops(const CommOp& op, const RouteModel& routes);

// `nccl_ring_latency` term: a ring collective as NCCL pipelines it (docs/metrics.md 9.8, 9.9). Every
// hop carries all `moved_bytes` (steps x chunk) at once, at its link's plateau efficiency for the op
// times the protocol's bandwidth factor; the call pays NCCL's ring latency once.
struct RingPipeline {
  std::vector<Route> hops;             // ring_collective_hops(op, routes)
  std::vector<double> hop_efficiency;  // per hop: link_plateau(op, class) * choice.bandwidth_factor
  double moved_bytes = 0;              // steps * chunk: what every hop carries
  NcclRingChoice choice;               // protocol (Simple unless the `nccl_protocols` term is on), latency
};

// The pipeline of an AllGather / ReduceScatter / AllReduce with at least two members and bytes > 0
// (throws std::invalid_argument otherwise). Shared with the simgrid lowering.
RingPipeline ring_collective_pipeline(const CommOp& op, const RouteModel& routes);

// Dispatches on op.kind for the four collectives; throws std::invalid_argument for SendRecv.
double collective_seconds(const CommOp& op, const RouteModel& routes);

}  // namespace hcpsim
