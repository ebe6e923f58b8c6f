#include "engine/cost/route.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "engine/cost/nccl_rails.h"

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
  // The one-rail route's NIC of every rank, looked up once (route() runs once per transfer).
  gpn_ = std::max(1, s.cluster.gpus_per_node);
  const std::size_t ranks = static_cast<std::size_t>(nodes) * static_cast<std::size_t>(gpn_);
  if (ranks <= kRankTableMax) {
    rank_nic_.resize(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
      RankNic& rn = rank_nic_[r];
      rn.nic = nic_of(static_cast<int>(r));
      if (rn.nic >= 0) rn.nic_Bps = nic_Bps(static_cast<int>(r) / gpn_, rn.nic);
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

std::vector<int> RouteModel::p2p_nics(int rank) const {
  const int gpn = std::max(1, s_.cluster.gpus_per_node);
  const int node = rank / gpn;
  std::vector<int> out;
  if (!cost_.terms().nccl_rails) {
    if (const int nic = nic_of(rank); nic >= 0) out.push_back(nic);
    return out;
  }
  for (const int nic : local_nics(rank % gpn, nics_, gpn)) {
    const int t = target_.at(slot(node, nic));
    if (t >= 0 && std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  }
  return out;
}

namespace {

[[noreturn]] void throw_no_nic(int node, int src, int dst) {
  throw std::runtime_error("infeasible scenario: every NIC of node " + std::to_string(node) +
                           " has failed (cluster.faults), so ranks " + std::to_string(src) + " -> " +
                           std::to_string(dst) + " cannot communicate");
}

}  // namespace

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
    r.one_rail_Bps = r.bottleneck_Bps;
    r.latency_s = cost_.latency_s(LinkClass::IntraNode);
    return r;
  }
  r.link_class = LinkClass::InterNode;
  r.latency_s = cost_.latency_s(LinkClass::InterNode);
  if (!cost_.terms().nccl_rails || nics_ < 2 * gpn) {
    // One NIC per GPU at most: one rail, the GPU's own NIC (no allocation on this hot path).
    const auto s_rank = static_cast<std::size_t>(src), d_rank = static_cast<std::size_t>(dst);
    if (src >= 0 && dst >= 0 && s_rank < rank_nic_.size() && d_rank < rank_nic_.size()) {
      const RankNic& a = rank_nic_[s_rank];
      const RankNic& b = rank_nic_[d_rank];
      r.src_nic = a.nic;
      r.dst_nic = b.nic;
      if (r.src_nic < 0) throw_no_nic(r.src_node, src, dst);
      if (r.dst_nic < 0) throw_no_nic(r.dst_node, src, dst);
      r.bottleneck_Bps = std::min(a.nic_Bps, b.nic_Bps);
      r.one_rail_Bps = r.bottleneck_Bps;
      return r;
    }
    r.src_nic = nic_of(src);
    r.dst_nic = nic_of(dst);
    if (r.src_nic < 0) throw_no_nic(r.src_node, src, dst);
    if (r.dst_nic < 0) throw_no_nic(r.dst_node, src, dst);
    r.bottleneck_Bps = std::min(nic_Bps(r.src_node, r.src_nic), nic_Bps(r.dst_node, r.dst_nic));
    r.one_rail_Bps = r.bottleneck_Bps;
    return r;
  }
  const std::vector<int> src_nics = p2p_nics(src);
  const std::vector<int> dst_nics = p2p_nics(dst);
  if (src_nics.empty()) throw_no_nic(r.src_node, src, dst);
  if (dst_nics.empty()) throw_no_nic(r.dst_node, src, dst);
  r.src_nic = src_nics.front();
  r.dst_nic = dst_nics.front();
  r.rails = std::max(1, std::min({static_cast<int>(src_nics.size()), static_cast<int>(dst_nics.size()),
                                  kNcclP2pChannelsPerNetPeer}));
  double src_Bps = 0, dst_Bps = 0;
  for (int j = 0; j < r.rails; ++j) {
    src_Bps += nic_Bps(r.src_node, src_nics[static_cast<std::size_t>(j)]);
    dst_Bps += nic_Bps(r.dst_node, dst_nics[static_cast<std::size_t>(j)]);
  }
  r.bottleneck_Bps = std::min(src_Bps, dst_Bps);
  r.one_rail_Bps = std::min(nic_Bps(r.src_node, r.src_nic), nic_Bps(r.dst_node, r.dst_nic));
  return r;
}

std::vector<Route> RouteModel::ring_hops(const std::vector<std::int32_t>& members, int channels) const {
  const std::size_t n = members.size();
  std::vector<Route> hops(n);
  for (std::size_t i = 0; i < n; ++i) hops[i] = route(members[i], members[(i + 1) % n]);
  if (!cost_.terms().nccl_rails || n < 2) return hops;
  // Per node of the group: the distinct NICs local to its members, and the ring hops leaving and
  // entering it.
  struct NodeRails {
    std::vector<int> nics;
    int out = 0, in = 0;
  };
  std::map<int, NodeRails> nodes;
  for (const std::int32_t m : members) {
    NodeRails& nr = nodes[m / std::max(1, s_.cluster.gpus_per_node)];
    for (const int nic : p2p_nics(m))
      if (std::find(nr.nics.begin(), nr.nics.end(), nic) == nr.nics.end()) nr.nics.push_back(nic);
  }
  for (const Route& h : hops)
    if (!h.self && h.link_class == LinkClass::InterNode) {
      ++nodes[h.src_node].out;
      ++nodes[h.dst_node].in;
    }
  for (auto& [node, nr] : nodes) std::sort(nr.nics.begin(), nr.nics.end());
  for (Route& h : hops) {
    if (h.self || h.link_class != LinkClass::InterNode) continue;
    const NodeRails& a = nodes.at(h.src_node);
    const NodeRails& b = nodes.at(h.dst_node);
    const int rails = ring_rails(static_cast<int>(a.nics.size()), static_cast<int>(b.nics.size()), channels);
    if (rails == 1) continue;   // one rail: the hop keeps its own GPUs' NICs
    h.rails = rails;
    double a_Bps = 0, b_Bps = 0;
    for (int j = 0; j < h.rails; ++j) {
      a_Bps += nic_Bps(h.src_node, a.nics[static_cast<std::size_t>(j)]);
      b_Bps += nic_Bps(h.dst_node, b.nics[static_cast<std::size_t>(j)]);
    }
    h.bottleneck_Bps = std::min(a_Bps / std::max(1, a.out), b_Bps / std::max(1, b.in));
  }
  return hops;
}

double RouteModel::transfer_seconds(const Route& r, double bytes, double message_bytes, TaskKind op) const {
  if (r.self) return 0.0;
  if (bytes <= 0) return r.latency_s;
  return r.latency_s + bytes / (r.bottleneck_Bps * cost_.link_efficiency(op, message_bytes, r.link_class));
}

double RouteModel::p2p_transfer_seconds(const Route& r, double bytes, const NcclP2pComm& comm) const {
  if (r.self) return 0.0;
  if (bytes <= 0) return r.latency_s;
  return r.latency_s + bytes / (r.bottleneck_Bps * cost_.p2p_efficiency(bytes, r.link_class, r.bottleneck_Bps, comm));
}

NcclP2pComm RouteModel::p2p_comm(const CommOp& op) const { return cost_.p2p_comm(op); }

double RouteModel::transfer_seconds(int src, int dst, double bytes) const {
  return transfer_seconds(route(src, dst), bytes, bytes);
}

}  // namespace hcpsim
