#include "engine/measured/collective_fit.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/analytic/collective_time.h"

namespace hcpsim {
namespace {

// Every route between two members: the slowest class (inter-node when any pair crosses nodes) and
// its largest latency.
void alltoall_parts(const CommOp& op, const RouteModel& routes, CollectiveModelTime& out) {
  const double n = static_cast<double>(op.ranks.size());
  out.message_bytes = op.bytes_per_rank / n;
  double latency = 0;
  bool inter = false, intra = false;
  for (std::size_t i = 0; i < op.ranks.size(); ++i)
    for (std::size_t j = 0; j < op.ranks.size(); ++j) {
      if (i == j) continue;
      const Route r = routes.route(op.ranks[i], op.ranks[j]);
      if (r.self) continue;
      inter = inter || r.link_class == LinkClass::InterNode;
      intra = intra || r.link_class == LinkClass::IntraNode;
      latency = std::max(latency, r.latency_s);
    }
  out.link_class = inter ? LinkClass::InterNode : LinkClass::IntraNode;
  out.efficiency = routes.cost().link_efficiency(TaskKind::AllToAll, out.message_bytes, out.link_class);
  out.latency_s = latency;
  out.bandwidth_s = std::max(0.0, alltoall_seconds(op, routes) - latency);
  out.other_class = inter && intra;
  if (out.other_class)
    out.other_efficiency = routes.cost().link_efficiency(TaskKind::AllToAll, out.message_bytes, LinkClass::IntraNode);
}

// Whether the ring's hops cross both classes, and the model's value for the class that does not set
// its time.
void other_hops(const CommOp& op, const std::vector<Route>& hops, const CostModel& cost, bool plateau,
                CollectiveModelTime& out) {
  for (const Route& r : hops)
    if (!r.self && r.link_class != out.link_class) out.other_class = true;
  if (!out.other_class) return;
  const LinkClass other = out.link_class == LinkClass::InterNode ? LinkClass::IntraNode : LinkClass::InterNode;
  out.other_efficiency = plateau ? cost.link_plateau(op.kind, other) : cost.link_efficiency(op.kind, out.message_bytes, other);
}

void ring_parts(const CommOp& op, const RouteModel& routes, CollectiveModelTime& out) {
  const CostModel& cost = routes.cost();
  const double n = static_cast<double>(op.ranks.size());
  const bool all_reduce = op.kind == TaskKind::AllReduce;
  out.message_bytes = all_reduce ? op.bytes_per_rank / n : op.bytes_per_rank;
  if (cost.terms().nccl_ring_latency) {
    // NCCL's latency once, then the slowest hop carrying every step's chunk.
    const RingPipeline p = ring_collective_pipeline(op, routes);
    double slowest = -1;
    for (std::size_t i = 0; i < p.hops.size(); ++i) {
      const Route& r = p.hops[i];
      if (r.self) continue;
      const double bw_s = p.moved_bytes / (r.bottleneck_Bps * p.hop_efficiency[i]);
      if (r.latency_s + bw_s <= slowest) continue;
      slowest = r.latency_s + bw_s;
      out.link_class = r.link_class;
      out.latency_s = p.choice.latency_s + r.latency_s;
      out.bandwidth_s = bw_s;
    }
    out.efficiency = cost.link_plateau(op.kind, out.link_class);
    other_hops(op, p.hops, cost, true, out);
    return;
  }
  // One hop per step, every step as long as the slowest hop.
  const double steps = all_reduce ? 2.0 * (n - 1) : n - 1;
  double slowest = -1;
  const std::vector<Route> hops = ring_collective_hops(op, routes);
  for (const Route& r : hops) {
    if (r.self) continue;
    const double step_s = routes.transfer_seconds(r, out.message_bytes, out.message_bytes, op.kind);
    if (step_s <= slowest) continue;
    slowest = step_s;
    out.link_class = r.link_class;
    out.latency_s = steps * r.latency_s;
    out.bandwidth_s = steps * (step_s - r.latency_s);
  }
  out.efficiency = cost.link_efficiency(op.kind, out.message_bytes, out.link_class);
  other_hops(op, hops, cost, false, out);
}

}  // namespace

CollectiveModelTime collective_model_time(const TaskGraph& g, const Task& t, const RouteModel& routes) {
  const bool collective = t.kind == TaskKind::AllGather || t.kind == TaskKind::ReduceScatter ||
                          t.kind == TaskKind::AllReduce || t.kind == TaskKind::AllToAll;
  if (!collective || t.comm == kNone || t.comm >= g.comms().size())
    throw std::invalid_argument(std::string("collective_model_time: task of kind ") + to_string(t.kind) +
                                " is not a collective call");
  const CommOp& op = g.comms()[t.comm];
  if (op.ranks.size() < 2 || !(op.bytes_per_rank > 0))
    throw std::invalid_argument("collective_model_time: the call needs at least 2 members and bytes > 0");
  CollectiveModelTime out;
  out.op = op.kind;
  out.ranks = static_cast<int>(op.ranks.size());
  const double n = out.ranks;
  if (op.kind == TaskKind::AllToAll) alltoall_parts(op, routes, out);
  else ring_parts(op, routes, out);
  const bool sharded = op.kind == TaskKind::AllGather || op.kind == TaskKind::ReduceScatter;
  out.nccl_size_bytes = sharded ? op.bytes_per_rank * n : op.bytes_per_rank;
  out.bus_factor = (op.kind == TaskKind::AllReduce ? 2.0 : 1.0) * (n - 1) / n;
  return out;
}

}  // namespace hcpsim
