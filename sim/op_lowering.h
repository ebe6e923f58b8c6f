#pragma once
// Lowering of one CommOp into the point-to-point flows the SimGrid executor starts. No SimGrid here,
// so the lowering is testable on its own. The executor lowers an op just in time, when its first
// member task becomes ready, and drops the flows when the op has ended: memory grows with the ops in
// flight, not with the graph.
//
// Lowering (CommOp semantics of task_graph.h):
//  - SendRecv: one flow per transfer; it starts when both its src and dst member tasks are ready.
//    Self-transfers are skipped. A member task ends when every flow it sends or receives has ended
//    (at its ready time when it has none); a 0-byte transfer still costs the latency.
//  - AllToAll: one flow per ordered pair (i != j, distinct ranks) of bytes_per_rank / n, all
//    concurrent once every member is ready.
//  - AllGather / ReduceScatter: NCCL ring over the members in group order, n-1 steps of
//    bytes_per_rank; AllReduce: 2(n-1) steps of bytes_per_rank / n. Flow k*n + i is step k of member
//    i (sending to member i+1); it starts after its own step k-1 and after receiving step k-1 from
//    member i-1, so the end of flow k*n + i opens flows (k+1)*n + i and (k+1)*n + (i+1) mod n.
//  - `nccl_rails` (PlanCosts::ring_rail_speedups / p2p_rail_speedup): an inter-node flow that NCCL
//    spreads over several NICs keeps its one SimGrid path and moves bytes / (efficiency * speed-up)
//    on it, so alone it lasts as long as on the rails; contention with other flows is then seen on
//    that path's NICs only (docs/metrics.md section 9.7).
//  - `nccl_p2p_channels` (PlanCosts::p2p_efficiency): a send/recv flow moves at most NCCL's
//    channels per peer x per-channel rate (docs/metrics.md section 9.10).
//  - `nccl_ring_latency` (PlanCosts::ring_pipeline): a ring collective as NCCL pipelines it. One
//    flow per hop i -> i+1, all started with the op, each carrying every step's chunk
//    (steps x chunk bytes) at the hop's pipeline efficiency; the members end `tail_s` (NCCL's ring
//    latency for the chosen protocol) after the last flow (docs/metrics.md sections 9.8, 9.9).
//  - A collective's member tasks all end together when its last flow ends (as NCCL collectives and
//    the analytic backend do); with bytes_per_rank <= 0 or one member they end when it starts.
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "engine/graph/task_graph.h"

namespace hcpsim::sim {

// Costs the executor needs; the backend fills them from CostModel (tests may use their own numbers).
struct PlanCosts {
  // Seconds a compute/copy task takes alone on its GPU (>= 0).
  std::function<double(const Task&)> compute_s;
  // Fraction (0, 1] of nominal link bandwidth reached by a flow of NCCL op `op` carrying a message
  // of `bytes` (inter_node: NIC path).
  std::function<double(TaskKind op, double bytes, bool inter_node)> link_efficiency;
  // Optional (empty: none). Fraction of its GPU's compute a communication task takes while it runs
  // (timer mode: the GPU's processor-sharing share drops to 1 - the sum over its running NCCL tasks).
  std::function<double(const Task&)> comm_load;
  // Optional (empty: 0). Seconds a communication task ends after its last flow (host overheads).
  std::function<double(const Task&)> comm_overhead_s;
  // Optional (empty: 1). `nccl_rails` term: how many times the bandwidth of its one SimGrid path
  // (the NIC of each GPU) an inter-node flow gets because NCCL spreads it over several NICs. Per
  // hop i -> i+1 of a ring collective (a vector of n factors), and per src -> dst pair of a
  // send/recv or all-to-all. The flow's wire bytes are divided by the factor (>= 1).
  std::function<std::vector<double>(const CommOp& op)> ring_rail_speedups;
  std::function<double(std::int32_t src, std::int32_t dst)> p2p_rail_speedup;
  // Optional (empty: link_efficiency). `nccl_p2p_channels` term: the efficiency in (0, 1] of the
  // send/recv flow src -> dst of `bytes` in op `op`, relative to the same nominal bandwidth as
  // link_efficiency and before the rail speed-up (CostModel::p2p_efficiency on the route).
  std::function<double(const CommOp& op, std::int32_t src, std::int32_t dst, double bytes)> p2p_efficiency;
  // Optional (empty: step by step). `nccl_ring_latency` term, for AllGather / ReduceScatter /
  // AllReduce ops with bytes: the efficiency each hop's one flow moves at (n values in (0, 1],
  // replacing link_efficiency) and the latency the members end after the last flow, seconds.
  struct RingPipelineCost {
    std::vector<double> hop_efficiency;
    double tail_s = 0;
  };
  std::function<RingPipelineCost(const CommOp& op)> ring_pipeline;
  int gpus_per_node = 8;
};

// 32 bytes. `gate` counts the events still needed before the flow may start; the executor
// decrements it in place.
struct OpFlow {
  std::int32_t src = 0;            // global ranks
  std::int32_t dst = 0;
  double wire_bytes = 0;           // bytes / link_efficiency: what the network model moves
  std::uint32_t src_member = 0;    // indices into CommOp::tasks of the sending and receiving task
  std::uint32_t dst_member = 0;
  std::uint32_t gate = 0;
  std::uint32_t pad_ = 0;
};

struct OpFlows {
  TaskKind kind = TaskKind::SendRecv;
  std::vector<OpFlow> flows;
  // Collectives: flows [0, initial) start when the op starts (every member ready).
  std::uint32_t initial = 0;
  // AllGather / ReduceScatter / AllReduce: n (flow k*n + i is ring step k of member i); else 0.
  std::uint32_t ring_members = 0;
  // Collectives: seconds the members end after the last flow (the pipelined ring's latency); 0 else.
  double tail_s = 0;
  // SendRecv: flows whose gate member m's readiness opens are
  // member_gates[gate_begin[m] .. gate_begin[m+1]); member_flows[m] counts the flows m sends or
  // receives (the executor decrements it in place).
  std::vector<std::uint32_t> gate_begin;
  std::vector<std::uint32_t> member_gates;
  std::vector<std::uint32_t> member_flows;
  // SendRecv: (task id, member index) sorted by task id, for member_of().
  std::vector<std::pair<TaskId, std::uint32_t>> members_by_task;

  bool collective() const { return kind != TaskKind::SendRecv; }
  // Member index of a task of this op; throws std::invalid_argument when it is not a member.
  std::uint32_t member_of(TaskId t) const;
  // Ring collectives: the flows whose gate the end of flow f opens (none after the last step).
  std::uint32_t ring_next(std::uint32_t f, std::uint32_t out[2]) const;
};

// Checks what can be checked without costs, for every comm op and communication task, without
// allocating in proportion to the graph: member lists agree with the tasks' comm/rank/kind fields,
// every communication task is listed by its op, transfers name members, bytes are >= 0, ranks lie in
// [0, world_size). Throws std::invalid_argument naming the task or op.
void check_comm_ops(const TaskGraph& g, int world_size);

// Lowers op `op` of `g`. Throws std::invalid_argument naming the task for a malformed op (the
// checks of check_comm_ops for this op) or a link efficiency outside (0, 1].
OpFlows lower_comm_op(const TaskGraph& g, std::uint32_t op, const PlanCosts& costs);
// The same into `out`, which is overwritten (every field; its vectors keep their capacity, so an
// executor that reuses one OpFlows per op in flight allocates nothing in the steady state). On an
// exception `out` holds a partial lowering.
void lower_comm_op(const TaskGraph& g, std::uint32_t op, const PlanCosts& costs, OpFlows& out);

// Compute seconds of a non-communication task; throws std::invalid_argument naming the task when
// the cost is negative or not a number.
double compute_seconds(const TaskGraph& g, TaskId t, const PlanCosts& costs);

}  // namespace hcpsim::sim
