#include "engine/analytic/collective_time.h"

#include <algorithm>
#include <map>
#include <stdexcept>

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
  auto add = [&](int kind, long id, double bw, const Route& r) {
    Load& l = loads[{kind, id}];
    l.bytes += piece;
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
        add(0, op.ranks[i], r.bottleneck_Bps, r);
        add(1, op.ranks[j], r.bottleneck_Bps, r);
      } else {
        add(2, r.src_node * nics + r.src_nic, routes.nic_Bps(r.src_node, r.src_nic), r);
        add(3, r.dst_node * nics + r.dst_nic, routes.nic_Bps(r.dst_node, r.dst_nic), r);
      }
    }
  double t = 0;
  for (const auto& [key, l] : loads)
    t = std::max(t, l.latency_s + l.bytes / (l.bandwidth_Bps * routes.cost().link_efficiency(TaskKind::AllToAll, piece, l.cls)));
  return t;
}

double ring_collective_seconds(const CommOp& op, const RouteModel& routes) {
  const auto n = op.ranks.size();
  if (n < 2 || op.bytes_per_rank <= 0) return 0.0;
  double chunk = op.bytes_per_rank;
  double steps = static_cast<double>(n - 1);
  if (op.kind == TaskKind::AllReduce) {
    chunk = op.bytes_per_rank / static_cast<double>(n);
    steps = 2.0 * static_cast<double>(n - 1);
  }
  double step_s = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Route r = routes.route(op.ranks[i], op.ranks[(i + 1) % n]);
    step_s = std::max(step_s, routes.transfer_seconds(r, chunk, chunk, op.kind));
  }
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
