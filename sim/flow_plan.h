#pragma once
// FlowPlan: a TaskGraph lowered to what the SimGrid executor starts — one compute duration per
// compute task and point-to-point flows for communication tasks. No SimGrid here, so the lowering is
// testable on its own and all cost-model work (and its exceptions) happens before the fork.
//
// Lowering (CommOp semantics of task_graph.h):
//  - SendRecv: one flow per transfer; it starts when both its src and dst member tasks are ready.
//  - AllToAll: one flow per ordered pair (i != j) of bytes_per_rank / n, all concurrent once every
//    member is ready.
//  - AllGather / ReduceScatter: NCCL ring over the members in group order, n-1 steps of
//    bytes_per_rank; AllReduce: 2(n-1) steps of bytes_per_rank / n. Step k of member i (sending to
//    member i+1) starts after its own step k-1 and after receiving step k-1 from member i-1.
//  - Self-transfers are skipped. A SendRecv member task ends when every flow it sends or receives
//    has ended (at its ready time when it has none); a 0-byte transfer still costs the latency.
//  - A collective's member tasks all end together when its last flow ends (as NCCL collectives and
//    the analytic backend do); with bytes_per_rank <= 0 or one member they end when it starts.
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/graph/task_graph.h"

namespace hcpsim::sim {

// Costs the plan needs; the backend fills them from CostModel (tests may use their own numbers).
struct PlanCosts {
  // Seconds a compute/copy task takes alone on its GPU (>= 0).
  std::function<double(const Task&)> compute_s;
  // Fraction (0, 1] of nominal link bandwidth reached by a message of `bytes` (inter_node: NIC path).
  std::function<double(double bytes, bool inter_node)> link_efficiency;
  int gpus_per_node = 8;
};

struct PlannedFlow {
  std::int32_t src = 0;           // global ranks
  std::int32_t dst = 0;
  double bytes = 0;               // logical bytes
  double wire_bytes = 0;          // bytes / link_efficiency: what the network model moves
  TaskId src_task = kNone;        // SendRecv: member tasks charged with this flow
  TaskId dst_task = kNone;
  std::uint32_t op = kNone;       // collectives: the CommOp whose members end with its last flow
  std::uint32_t gate = 0;         // events before it may start (ready tasks / op start / earlier steps)
};

// Compressed adjacency: items of key k are items[begin[k] .. begin[k+1]).
struct Csr {
  std::vector<std::uint32_t> begin;
  std::vector<std::uint32_t> items;
  std::uint32_t size(std::size_t k) const { return begin[k + 1] - begin[k]; }
};

struct FlowPlan {
  std::vector<double> compute_s;          // per task; 0 for communication tasks
  std::vector<std::uint32_t> flow_count;  // per task: SendRecv flows it sends or receives
  std::vector<PlannedFlow> flows;
  Csr task_gates;      // per task: flows whose gate this task's readiness opens (SendRecv)
  Csr op_initial;      // per CommOp: flows whose gate the collective's start opens
  Csr flow_next;       // per flow: flows whose gate this flow's end opens (ring steps)
  std::vector<std::uint32_t> op_members;  // per CommOp: member tasks (collectives start when all ready)
  std::vector<std::uint32_t> op_flows;    // per CommOp: flows of a collective (0 for SendRecv)
};

// Lowers the graph. Throws std::invalid_argument naming the task for a malformed comm op (member
// count mismatch, transfer rank not a member, negative cost or bytes, efficiency outside (0, 1]).
FlowPlan make_flow_plan(const TaskGraph& g, const PlanCosts& costs);

}  // namespace hcpsim::sim
