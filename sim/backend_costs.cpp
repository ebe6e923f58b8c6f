#include "sim/backend_costs.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "engine/analytic/collective_time.h"
#include "engine/cost/route.h"
#include "engine/cost/task_cost_memo.h"

namespace hcpsim::sim {

PlanCosts backend_plan_costs(const RunContext& ctx, const TaskGraph& g) {
  PlanCosts c;
  const CostModel& cost = ctx.cost;
  // One memo per run, shared by the copies of these functions (the child process runs them alone).
  auto memo = std::make_shared<TaskCostMemo>(cost, g);
  c.compute_s = [memo](const Task& t) { return memo->compute_seconds(t); };
  // The efficiencies are pure functions of their arguments (the cost model is fixed when built),
  // and the flows of one op, and of consecutive ops of a ring, ask with the same arguments: the last
  // answer is kept and given again for equal arguments (compared exactly).
  struct LastEfficiency {
    TaskKind op = TaskKind::SendRecv;
    double bytes = -1;
    bool inter = false;
    double value = 0;
  };
  auto last_eff = std::make_shared<LastEfficiency>();
  c.link_efficiency = [&cost, last_eff](TaskKind op, double bytes, bool inter) {
    LastEfficiency& l = *last_eff;
    if (!(bytes == l.bytes && op == l.op && inter == l.inter)) {
      l.value = cost.link_efficiency(op, bytes, inter ? LinkClass::InterNode : LinkClass::IntraNode);
      l.op = op;
      l.bytes = bytes;
      l.inter = inter;
    }
    return l.value;
  };
  c.comm_load = [memo](const Task& t) { return memo->comm_compute_load(t); };
  c.comm_overhead_s = [&cost](const Task& t) { return cost.comm_overhead_s(t); };
  c.gpus_per_node = ctx.scenario.cluster.gpus_per_node;
  auto routes = std::make_shared<const RouteModel>(ctx.scenario, cost);
  if (cost.terms().nccl_p2p_channels) {
    // The analytic backend's send/recv efficiency on the flow's route, relative to its one SimGrid
    // path (the rail speed-up is applied on top).
    // The op's communicator is the same for each of its flows: computed once per op (p2p_comm walks
    // the op's members). The executor lowers one op at a time, asking for all of its flows in a row,
    // so remembering the last op is enough (a map of every op grew to one entry per op of the graph).
    // The efficiency itself is kept for the last arguments, as link_efficiency above.
    struct LastComm {
      const CommOp* op = nullptr;
      NcclP2pComm comm;
      double bytes = -1;
      LinkClass link_class = LinkClass::IntraNode;
      double route_Bps = -1;
      NcclP2pComm asked;
      double value = 0;
    };
    static_assert(sizeof(NcclP2pComm) == 3 * sizeof(int), "the comparison below must name every field of NcclP2pComm");
    auto last = std::make_shared<LastComm>();
    c.p2p_efficiency = [routes, last](const CommOp& op, std::int32_t src, std::int32_t dst, double bytes) {
      LastComm& l = *last;
      const Route r = routes->route(src, dst);
      if (l.op != &op) {
        l.comm = routes->p2p_comm(op);
        l.op = &op;
      }
      if (!(bytes == l.bytes && r.link_class == l.link_class && r.bottleneck_Bps == l.route_Bps &&
            l.comm.ranks == l.asked.ranks && l.comm.nodes == l.asked.nodes &&
            l.comm.nvlinks_per_gpu == l.asked.nvlinks_per_gpu)) {
        l.value = routes->cost().p2p_efficiency(bytes, r.link_class, r.bottleneck_Bps, l.comm);
        l.bytes = bytes;
        l.link_class = r.link_class;
        l.route_Bps = r.bottleneck_Bps;
        l.asked = l.comm;
      }
      return l.value;
    };
  }
  if (cost.terms().nccl_ring_latency) {
    // The analytic backend's pipeline of the ring collective (same hops, efficiencies and latency).
    c.ring_pipeline = [routes](const CommOp& op) {
      const RingPipeline p = ring_collective_pipeline(op, *routes);
      return PlanCosts::RingPipelineCost{p.hop_efficiency, p.choice.latency_s};
    };
  }
  if (cost.terms().nccl_rails) {
    // The rails of RouteModel, as the analytic backend applies them, as speed-ups of the flows' one
    // SimGrid path.
    auto speedup = [](const Route& r) {
      return !r.self && r.link_class == LinkClass::InterNode && r.one_rail_Bps > 0 ? std::max(1.0, r.bottleneck_Bps / r.one_rail_Bps)
                                                                                    : 1.0;
    };
    c.ring_rail_speedups = [routes, speedup](const CommOp& op) {
      std::vector<double> out;
      for (const Route& r : ring_collective_hops(op, *routes)) out.push_back(speedup(r));
      return out;
    };
    c.p2p_rail_speedup = [routes, speedup](std::int32_t src, std::int32_t dst) { return speedup(routes->route(src, dst)); };
  }
  return c;
}

}  // namespace hcpsim::sim
