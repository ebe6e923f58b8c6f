#include "engine/analytic/collective_time.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include "engine/cost/nccl_curves.h"

namespace hcpsim {

double alltoall_seconds(const CommOp& op, const RouteModel& routes) {
  const auto n = op.ranks.size();
  if (n < 2 || op.bytes_per_rank <= 0) return 0.0;
  const double piece = op.bytes_per_rank / static_cast<double>(n);
  // Link key: (direction/kind, id). 0 = GPU port out, 1 = GPU port in, 2 = NIC out, 3 = NIC in.
  struct Load {
    double bytes = 0, bandwidth_Bps = 0, latency_s = 0;
    LinkClass cls = LinkClass::IntraNode;
  };
  std::map<std::pair<int, long>, Load> loads;
  const long nics = 1L << 20;
  auto add = [&](int kind, long id, double bw, const Route& r, double bytes) {
    Load& l = loads[{kind, id}];
    l.bytes += bytes;
    l.bandwidth_Bps = bw;
    l.latency_s = r.latency_s;
    l.cls = r.link_class;
  };
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      const Route r = routes.route(op.ranks[i], op.ranks[j]);
      if (r.self) continue;
      if (r.link_class == LinkClass::IntraNode) {
        add(0, op.ranks[i], r.bottleneck_Bps, r, piece);
        add(1, op.ranks[j], r.bottleneck_Bps, r, piece);
      } else if (r.rails == 1) {
        add(2, r.src_node * nics + r.src_nic, routes.nic_Bps(r.src_node, r.src_nic), r, piece);
        add(3, r.dst_node * nics + r.dst_nic, routes.nic_Bps(r.dst_node, r.dst_nic), r, piece);
      } else {
        // `nccl_rails`: the pair's channels spread the piece over the NICs local to both GPUs.
        const std::vector<int> src_nics = routes.p2p_nics(op.ranks[i]);
        const std::vector<int> dst_nics = routes.p2p_nics(op.ranks[j]);
        const double share = piece / r.rails;
        for (int k = 0; k < r.rails; ++k) {
          const int a = src_nics[static_cast<std::size_t>(k)], b = dst_nics[static_cast<std::size_t>(k)];
          add(2, r.src_node * nics + a, routes.nic_Bps(r.src_node, a), r, share);
          add(3, r.dst_node * nics + b, routes.nic_Bps(r.dst_node, b), r, share);
        }
      }
    }
  double t = 0;
  for (const auto& [key, l] : loads)
    t = std::max(t, l.latency_s + l.bytes / (l.bandwidth_Bps * routes.cost().link_efficiency(TaskKind::AllToAll, piece, l.cls)));
  return t;
}

std::vector<Route> ring_collective_hops(const CommOp& op, const RouteModel& routes) {
  const auto n = op.ranks.size();
  const double chunk = op.kind == TaskKind::AllReduce ? op.bytes_per_rank / static_cast<double>(std::max<std::size_t>(1, n))
                                                      : op.bytes_per_rank;
  // `nccl_rails`: NCCL's channels (one ring each) leave a node through different NICs; as many as
  // it runs for a chunk of this size on the network.
  const int channels = nccl_channels(op.kind, LinkClass::InterNode, chunk, static_cast<int>(n));
  return routes.ring_hops(op.ranks, channels);
}

RingPipeline ring_collective_pipeline(const CommOp& op, const RouteModel& routes) {
  const auto n = op.ranks.size();
  if (op.kind != TaskKind::AllGather && op.kind != TaskKind::ReduceScatter && op.kind != TaskKind::AllReduce)
    throw std::invalid_argument(std::string("ring_collective_pipeline: ") + to_string(op.kind) + " is not a ring collective");
  if (n < 2 || !(op.bytes_per_rank > 0))
    throw std::invalid_argument("ring_collective_pipeline: needs at least 2 members and bytes_per_rank > 0");
  const CostModel& cost = routes.cost();
  const int gpn = std::max(1, cost.scenario().cluster.gpus_per_node);
  std::set<int> nodes;
  for (const std::int32_t r : op.ranks) nodes.insert(r / gpn);
  NcclRingShape shape;
  shape.op = op.kind;
  shape.ranks = static_cast<int>(n);
  shape.nodes = static_cast<int>(nodes.size());
  const double chunk = op.kind == TaskKind::AllReduce ? op.bytes_per_rank / static_cast<double>(n) : op.bytes_per_rank;
  shape.channels = nccl_channels(op.kind, shape.nodes > 1 ? LinkClass::InterNode : LinkClass::IntraNode, chunk,
                                 shape.ranks);
  RingPipeline p;
  p.hops = ring_collective_hops(op, routes);
  p.moved_bytes = nccl_ring_steps(shape) * chunk;
  // Simple's bus bandwidth: the slowest hop at its plateau.
  double simple_bus_Bps = 0;
  std::vector<double> plateau(p.hops.size(), 1.0);
  for (std::size_t i = 0; i < p.hops.size(); ++i) {
    const Route& r = p.hops[i];
    if (r.self) continue;
    plateau[i] = cost.link_plateau(op.kind, r.link_class);
    const double bus = r.bottleneck_Bps * plateau[i];
    if (simple_bus_Bps == 0 || bus < simple_bus_Bps) simple_bus_Bps = bus;
  }
  if (!(simple_bus_Bps > 0)) simple_bus_Bps = 1.0;   // every hop a self-hop: nothing moves
  p.choice = nccl_ring_choice(nccl_arch(cost.scenario().cluster.gpu.name), shape, chunk, simple_bus_Bps,
                              cost.terms().nccl_protocols);
  p.hop_efficiency.resize(p.hops.size());
  for (std::size_t i = 0; i < p.hops.size(); ++i) p.hop_efficiency[i] = plateau[i] * p.choice.bandwidth_factor;
  return p;
}

double ring_collective_seconds(const CommOp& op, const RouteModel& routes) {
  const auto n = op.ranks.size();
  if (n < 2 || op.bytes_per_rank <= 0) return 0.0;
  if (routes.cost().terms().nccl_ring_latency) {
    const RingPipeline p = ring_collective_pipeline(op, routes);
    double slowest_s = 0;
    for (std::size_t i = 0; i < p.hops.size(); ++i) {
      const Route& r = p.hops[i];
      if (r.self) continue;
      slowest_s = std::max(slowest_s, r.latency_s + p.moved_bytes / (r.bottleneck_Bps * p.hop_efficiency[i]));
    }
    return p.choice.latency_s + slowest_s;
  }
  double chunk = op.bytes_per_rank;
  double steps = static_cast<double>(n - 1);
  if (op.kind == TaskKind::AllReduce) {
    chunk = op.bytes_per_rank / static_cast<double>(n);
    steps = 2.0 * static_cast<double>(n - 1);
  }
  double step_s = 0;
  for (const Route& r : ring_collective_hops(op, routes))
    step_s = std::max(step_s, routes.transfer_seconds(r, chunk, chunk, op.kind));
  return steps * step_s;
}

double collective_seconds(const CommOp& op, const RouteModel& routes) {
  switch (op.kind) {
    case TaskKind::AllToAll: return alltoall_seconds(op, routes);
    case TaskKind::AllGather:
    case TaskKind::ReduceScatter:
    case TaskKind::AllReduce: return ring_collective_seconds(op, routes);
    default:
      throw std::invalid_argument(std::string("collective_seconds: ") + to_string(op.kind) + " is not a collective");
  }
}

}  // namespace hcpsim
