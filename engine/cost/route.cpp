#include "engine/cost/route.h"

#include <algorithm>
#include <stdexcept>

namespace hcpsim {

RouteModel::RouteModel(const Scenario& s, const CostModel& cost) : s_(s), cost_(cost) {
  const int nodes = std::max(1, s.cluster.nodes);
  nics_ = std::max(1, s.cluster.nics_per_node);
  const std::size_t slots = static_cast<std::size_t>(nodes) * static_cast<std::size_t>(nics_);
  factor_.assign(slots, 1.0);
  std::vector<char> failed(slots, 0);
  for (std::size_t i = 0; i < s.cluster.faults.size(); ++i) {
    const Fault& f = s.cluster.faults[i];
    if (f.kind == Fault::Kind::Straggler) continue;
    const std::string field = "cluster.faults[" + std::to_string(i) + "]";
    if (f.node < 0 || f.node >= nodes)
      throw std::invalid_argument(field + ".node: " + std::to_string(f.node) + " is outside 0.." +
                                  std::to_string(nodes - 1));
    if (f.nic < 0 || f.nic >= nics_)
      throw std::invalid_argument(field + ".nic: " + std::to_string(f.nic) + " is outside 0.." +
                                  std::to_string(nics_ - 1));
    const std::size_t k = slot(f.node, f.nic);
    if (f.kind == Fault::Kind::FailedNic) {
      failed[k] = 1;
    } else {
      if (!(f.bandwidth_factor > 0 && f.bandwidth_factor <= 1))
        throw std::invalid_argument(field + ".bandwidth_factor: must be in (0, 1], got " +
                                    std::to_string(f.bandwidth_factor));
      factor_[k] *= f.bandwidth_factor;
    }
  }
  // Failover: a failed NIC's traffic goes to the next working NIC of the node (index + 1, wrapping).
  target_.assign(failed.size(), -1);
  for (int n = 0; n < nodes; ++n)
    for (int i = 0; i < nics_; ++i)
      for (int k = 0; k < nics_; ++k) {
        const int cand = (i + k) % nics_;
        if (!failed[slot(n, cand)]) {
          target_[slot(n, i)] = cand;
          break;
        }
      }
}

int RouteModel::nic_of(int rank) const {
  const int gpn = std::max(1, s_.cluster.gpus_per_node);
  const int node = rank / gpn;
  const int nic = (rank % gpn) % nics_;
  return target_.at(slot(node, nic));
}

double RouteModel::nic_Bps(int node, int nic) const {
  const double nominal = s_.cluster.nic_bandwidth_Bps;
  double bw = nominal * factor_.at(slot(node, nic));
  if (s_.cluster.oversubscription > 1.0) bw = std::min(bw, nominal / s_.cluster.oversubscription);
  return bw;
}

Route RouteModel::route(int src, int dst) const {
  const int gpn = std::max(1, s_.cluster.gpus_per_node);
  Route r;
  r.src_node = src / gpn;
  r.dst_node = dst / gpn;
  if (src == dst) {
    r.self = true;
    return r;
  }
  if (r.src_node == r.dst_node) {
    r.link_class = LinkClass::IntraNode;
    r.bottleneck_Bps = s_.cluster.intra_node_bandwidth_Bps;   // sender port out, receiver port in
    r.latency_s = cost_.latency_s(LinkClass::IntraNode);
    return r;
  }
  r.link_class = LinkClass::InterNode;
  r.src_nic = nic_of(src);
  r.dst_nic = nic_of(dst);
  for (const auto& [node, nic] : {std::pair{r.src_node, r.src_nic}, std::pair{r.dst_node, r.dst_nic}})
    if (nic < 0)
      throw std::runtime_error("infeasible scenario: every NIC of node " + std::to_string(node) +
                               " has failed (cluster.faults), so ranks " + std::to_string(src) + " -> " +
                               std::to_string(dst) + " cannot communicate");
  r.bottleneck_Bps = std::min(nic_Bps(r.src_node, r.src_nic), nic_Bps(r.dst_node, r.dst_nic));
  r.latency_s = cost_.latency_s(LinkClass::InterNode);
  return r;
}

double RouteModel::transfer_seconds(const Route& r, double bytes, double message_bytes, TaskKind op) const {
  if (r.self) return 0.0;
  if (bytes <= 0) return r.latency_s;
  return r.latency_s + bytes / (r.bottleneck_Bps * cost_.link_efficiency(op, message_bytes, r.link_class));
}

double RouteModel::transfer_seconds(int src, int dst, double bytes) const {
  return transfer_seconds(route(src, dst), bytes, bytes);
}

}  // namespace hcpsim
