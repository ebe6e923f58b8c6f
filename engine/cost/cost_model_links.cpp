// CostModel, links and communication: link efficiencies by op, size and class, NCCL send/recv, the
// load communication puts on compute, latencies. See docs/metrics.md.
#include "engine/cost/cost_model.h"
#include "engine/cost/cost_model_impl.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>
#include "engine/cost/calibration.h"
#include "engine/cost/comm_load.h"
#include "engine/cost/attention_tables.h"
#include "engine/cost/cost_defaults.h"
#include "engine/cost/efficiency_source.h"
#include "engine/cost/fp8_rates.h"
#include "engine/cost/gemm_efficiency.h"
#include "engine/cost/nccl_curves.h"
#include "engine/cost/nccl_p2p.h"

namespace hcpsim {

using cost_detail::curve_plateau;

double CostModel::link_efficiency(double message_bytes, LinkClass c) const {
  return link_efficiency(TaskKind::SendRecv, message_bytes, c);
}

double CostModel::link_efficiency(TaskKind op, double message_bytes, LinkClass c) const {
  const auto& e = impl_->scenario.cluster.efficiency;
  const bool curves = e.terms.bandwidth_curves;
  const auto& table = c == LinkClass::IntraNode ? impl_->calibration.intra_node : impl_->calibration.inter_node;
  const double m = std::max(1.0, message_bytes);
  // Calibration: the op's own entries when the curves term is on and the file has them, else the
  // send/recv entries.
  std::vector<std::pair<double, double>> pts;
  if (curves && op != TaskKind::SendRecv)
    for (const auto& p : table)
      if (p.op == to_string(op)) pts.emplace_back(p.bytes, p.efficiency);
  if (pts.empty())
    for (const auto& p : table)
      if (p.op == "send_recv") pts.emplace_back(p.bytes, p.efficiency);
  const double plateau = c == LinkClass::IntraNode ? e.intra_node_link : e.inter_node_link;
  if (!pts.empty()) {
    const double here = interpolate_log_x(pts, m);
    if (!(c == LinkClass::IntraNode ? impl_->stated_intra_node_link : impl_->stated_inter_node_link)) return here;
    // A stated plateau is the send/recv level: every op's measured curve keeps its ratio to the
    // measured send/recv plateau (or to its own, when the file has no send/recv entries).
    std::vector<std::pair<double, double>> send_recv;
    for (const auto& p : table)
      if (p.op == "send_recv") send_recv.emplace_back(p.bytes, p.efficiency);
    return scale_stated_plateau(plateau, here, curve_plateau(send_recv.empty() ? std::move(pts) : std::move(send_recv)));
  }
  if (!curves) {
    const double half = c == LinkClass::IntraNode ? cost_defaults::kIntraNodeHalfBandwidth_bytes
                                                  : cost_defaults::kInterNodeHalfBandwidth_bytes;
    return plateau * m / (m + half);
  }
  const BandwidthCurve curve = nccl_bandwidth_curve(op, c, impl_->scenario.cluster.intra_node_nvls);
  const double family = c == LinkClass::IntraNode ? nvlink_family_ratio(impl_->scenario.cluster.gpu.name) : 1.0;
  return std::min(1.0, plateau * curve.plateau_ratio * family) * m / (m + curve.half_bytes);
}

double CostModel::p2p_efficiency(double message_bytes, LinkClass c, double route_Bps, const NcclP2pComm& comm) const {
  const double base = link_efficiency(TaskKind::SendRecv, message_bytes, c);
  const auto& e = impl_->scenario.cluster.efficiency;
  if (!e.terms.nccl_p2p_channels || !(route_Bps > 0)) return base;
  const bool intra = c == LinkClass::IntraNode;
  // Measured: the calibration already holds the cap.
  if (intra ? impl_->send_recv_measured_intra : impl_->send_recv_measured_inter) return base;
  const double m = std::max(1.0, message_bytes);
  const double plateau = intra ? e.intra_node_link : e.inter_node_link;
  double level = plateau;
  double half = intra ? cost_defaults::kIntraNodeHalfBandwidth_bytes : cost_defaults::kInterNodeHalfBandwidth_bytes;
  if (e.terms.bandwidth_curves) {
    // Send/recv's NVLink ratio is 1; its network ratio (0.59) is the per-peer cap priced here instead.
    level = std::min(1.0, plateau * (intra ? impl_->nvlink_family : 1.0));
    half = nccl_bandwidth_curve(TaskKind::SendRecv, c, impl_->scenario.cluster.intra_node_nvls).half_bytes;
  }
  // A stated plateau is the send/recv level the user measured, per-peer cap included (as a
  // calibration file's is): the cap does not replace it.
  if (intra ? impl_->stated_intra_node_link : impl_->stated_inter_node_link) return level * m / (m + half);
  const double cap = nccl_p2p_cap_Bps(impl_->arch, c, comm, m) / route_Bps;
  return std::min(level, cap) * m / (m + half);
}

NcclP2pComm CostModel::p2p_comm(const CommOp& op) const {
  const int gpn = std::max(1, impl_->scenario.cluster.gpus_per_node);
  NcclP2pComm c;
  c.ranks = static_cast<int>(op.ranks.size());
  c.nvlinks_per_gpu = impl_->nvlinks;
  // Distinct nodes among the members. The schedules list them in rank order, so the count is a walk
  // from node boundary to node boundary (a binary search each); any other order is sorted first.
  auto count_nodes = [gpn](const std::int32_t* first, const std::int32_t* last) {
    int nodes = 0;
    while (first != last) {
      ++nodes;
      const std::int32_t next_node_start = (*first / gpn + 1) * gpn;
      first = std::lower_bound(first, last, next_node_start);
    }
    return nodes;
  };
  const std::int32_t* b = op.ranks.data();
  const std::int32_t* e = b + op.ranks.size();
  if (std::is_sorted(b, e)) {
    c.nodes = count_nodes(b, e);
  } else {
    std::vector<std::int32_t> sorted(b, e);
    std::sort(sorted.begin(), sorted.end());
    c.nodes = count_nodes(sorted.data(), sorted.data() + sorted.size());
  }
  return c;
}

double CostModel::link_plateau(TaskKind op, LinkClass c) const {
  const auto& e = impl_->scenario.cluster.efficiency;
  const bool curves = e.terms.bandwidth_curves;
  const auto& table = c == LinkClass::IntraNode ? impl_->calibration.intra_node : impl_->calibration.inter_node;
  // A calibration table's plateau: its entry at the largest message (of the op when it has some).
  double largest = 0;
  for (const auto& p : table)
    if (curves && op != TaskKind::SendRecv && p.op == to_string(op)) largest = std::max(largest, p.bytes);
  if (largest == 0)
    for (const auto& p : table)
      if (p.op == "send_recv") largest = std::max(largest, p.bytes);
  if (largest > 0) return link_efficiency(op, largest, c);
  const double plateau = c == LinkClass::IntraNode ? e.intra_node_link : e.inter_node_link;
  if (!curves) return plateau;
  const BandwidthCurve curve = nccl_bandwidth_curve(op, c, impl_->scenario.cluster.intra_node_nvls);
  const double family = c == LinkClass::IntraNode ? nvlink_family_ratio(impl_->scenario.cluster.gpu.name) : 1.0;
  return std::min(1.0, plateau * curve.plateau_ratio * family);
}

const ModelTerms& CostModel::terms() const { return impl_->scenario.cluster.efficiency.terms; }

LinkClass CostModel::link_class_of(const TaskGraph& g, const Task& t) const {
  if (t.comm == kNone || t.comm >= g.comms().size()) return LinkClass::IntraNode;
  const CommOp& op = g.comms()[t.comm];
  const int gpn = std::max(1, impl_->scenario.cluster.gpus_per_node);
  const int node = t.rank / gpn;
  if (op.kind == TaskKind::SendRecv) {
    for (const Transfer& x : op.transfers)
      if ((x.src == t.rank || x.dst == t.rank) && x.src / gpn != x.dst / gpn) return LinkClass::InterNode;
    return LinkClass::IntraNode;
  }
  for (const std::int32_t r : op.ranks)
    if (r / gpn != node) return LinkClass::InterNode;
  return LinkClass::IntraNode;
}

double CostModel::comm_compute_load(const TaskGraph& g, const Task& t) const {
  if (!terms().comm_compute_interference || !is_communication(t.kind) || t.comm == kNone || t.comm >= g.comms().size())
    return 0.0;
  return comm_compute_load(g, t, link_class_of(g, t));
}

double CostModel::comm_compute_load(const TaskGraph& g, const Task& t, LinkClass c) const {
  return comm_compute_load(g, t, c, nullptr);
}

double CostModel::comm_compute_load(const TaskGraph& g, const Task& t, LinkClass c, const NcclP2pComm* p2p) const {
  const auto& sc = impl_->scenario;
  if (!sc.cluster.efficiency.terms.comm_compute_interference || !is_communication(t.kind)) return 0.0;
  if (t.comm == kNone || t.comm >= g.comms().size()) return 0.0;
  const CommOp& op = g.comms()[t.comm];
  const int n = static_cast<int>(op.ranks.size());
  // Message of one flow, as the link efficiency sees it.
  double message = t.bytes;
  if (op.kind == TaskKind::AllToAll) message = op.bytes_per_rank / std::max(1, n);
  else if (op.kind == TaskKind::AllReduce) message = op.bytes_per_rank / std::max(1, n);
  else if (op.kind != TaskKind::SendRecv) message = op.bytes_per_rank;
  if (!(message > 0)) return 0.0;
  const double nominal_Bps = c == LinkClass::IntraNode ? sc.cluster.intra_node_bandwidth_Bps : sc.cluster.nic_bandwidth_Bps;
  const int channels = nccl_channels(op.kind, c, message, n);
  double rate_Bps = nominal_Bps * link_efficiency(op.kind, message, c);
  // `nccl_p2p_channels` (section 9.10): a send/recv moves its bytes through HBM at its capped rate.
  if (op.kind == TaskKind::SendRecv && sc.cluster.efficiency.terms.nccl_p2p_channels)
    rate_Bps = nominal_Bps * p2p_efficiency(message, c, nominal_Bps, p2p != nullptr ? *p2p : p2p_comm(op));
  // NCCL reads what the GPU sends and writes what it receives: twice the link rate through HBM.
  return comm_compute_load_of(channels, sc.cluster.gpu.sm_count, 2.0 * rate_Bps, sc.cluster.gpu.hbm_Bps,
                              sc.cluster.efficiency.comm_hbm_interference);
}

double CostModel::comm_overhead_s(const Task& t) const {
  const auto& e = impl_->scenario.cluster.efficiency;
  if (!e.terms.host_overheads || !is_communication(t.kind)) return 0.0;
  return e.nccl_launch_s + (t.kind == TaskKind::SendRecv && t.step >= 0 ? e.ring_step_sync_s : 0.0);
}

double CostModel::latency_s(LinkClass c) const {
  return c == LinkClass::IntraNode ? impl_->scenario.cluster.intra_node_latency_s
                                   : impl_->scenario.cluster.inter_node_latency_s;
}

}  // namespace hcpsim
