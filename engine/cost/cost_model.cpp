// CostModel: see docs/metrics.md for every formula and the public measurements behind the constants.
#include "engine/cost/cost_model.h"

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

struct CostModel::Impl {
  Scenario scenario;
  Calibration calibration;
  std::vector<double> slowdown;   // per rank
  // Fixed per model, read on every send/recv by p2p_efficiency and p2p_comm (set in the constructor).
  NcclArch arch = NcclArch::Hopper;
  double nvlink_family = 1.0;            // nvlink_family_ratio(gpu name)
  int nvlinks = 1;                       // nvlinks_per_gpu(arch, intra-node bandwidth)
  bool send_recv_measured_intra = false; // the calibration file has send_recv points on NVLink
  bool send_recv_measured_inter = false; // ... on the network
  // Plateaus the user set (scenario line or override): a table or calibration curve refines their
  // shape dependence, never their level (docs/metrics.md "Where each efficiency comes from").
  bool stated_attention_forward = false, stated_attention_backward = false, stated_gemm = false;
  bool stated_intra_node_link = false, stated_inter_node_link = false;
  // `gemm_shapes`: the published GEMM fits of the GPU (nullopt: none published, or the term off).
  std::optional<GemmKernelFit> gemm_bf16, gemm_fp8;
};

namespace {

bool is_causal_section(MaskSection m) {
  return m == MaskSection::Diagonal || m == MaskSection::Causal || m == MaskSection::BottomRight;
}

double falloff(double len, double half_len) { return len <= 0 ? 0.0 : len / (len + half_len); }

// A curve's plateau: its value past its largest point (interpolate_log_x clamps there).
double curve_plateau(std::vector<std::pair<double, double>> pts) {
  return interpolate_log_x(std::move(pts), std::numeric_limits<double>::max());
}

bool stated(const Scenario& s, const char* efficiency_field) {
  return is_stated(field_origin(s, std::string("cluster.efficiency.") + efficiency_field).origin);
}

void check_fraction(double v, const char* field) {
  if (!(v > 0 && v <= 1))
    throw std::invalid_argument(std::string("cluster.efficiency.") + field + ": must be in (0, 1], got " +
                                std::to_string(v));
}

}  // namespace

CostModel::CostModel(const Scenario& s) : impl_(std::make_unique<Impl>()) {
  impl_->scenario = s;
  const auto& e = s.cluster.efficiency;
  check_fraction(e.attention_forward, "attention_forward");
  check_fraction(e.attention_backward, "attention_backward");
  check_fraction(e.gemm, "gemm");
  check_fraction(e.memory, "memory");
  check_fraction(e.intra_node_link, "intra_node_link");
  check_fraction(e.inter_node_link, "inter_node_link");
  if (!(s.cluster.gpu.bf16_flops > 0)) throw std::invalid_argument("cluster.gpu.bf16_tflops: must be > 0");
  if (!(s.cluster.gpu.hbm_Bps > 0)) throw std::invalid_argument("cluster.gpu.hbm_bandwidth: must be > 0");
  if (s.cluster.gpu.sm_count < 1) throw std::invalid_argument("cluster.gpu.sm_count: must be >= 1");
  if (!(e.comm_hbm_interference >= 0))
    throw std::invalid_argument("cluster.efficiency.comm_hbm_interference: must be >= 0");
  if (!(e.nccl_launch_s >= 0)) throw std::invalid_argument("cluster.efficiency.nccl_launch: must be >= 0");
  if (!(e.ring_step_sync_s >= 0)) throw std::invalid_argument("cluster.efficiency.ring_step_sync: must be >= 0");
  if (!s.cluster.calibration_path.empty()) {
    impl_->calibration = load_calibration_file(s.cluster.calibration_path);
    // Term parameters measured on the hardware replace the built-in ones, not the ones the user set
    // (docs/metrics.md section 8).
    auto& me = impl_->scenario.cluster.efficiency;
    const Calibration& cal = impl_->calibration;
    if (cal.comm_hbm_interference && !stated(s, "comm_hbm_interference")) me.comm_hbm_interference = *cal.comm_hbm_interference;
    if (cal.nccl_launch_s && !stated(s, "nccl_launch")) me.nccl_launch_s = *cal.nccl_launch_s;
    if (cal.ring_step_sync_s && !stated(s, "ring_step_sync")) me.ring_step_sync_s = *cal.ring_step_sync_s;
  }
  impl_->stated_attention_forward = stated(s, "attention_forward");
  impl_->stated_attention_backward = stated(s, "attention_backward");
  impl_->stated_gemm = stated(s, "gemm");
  impl_->stated_intra_node_link = stated(s, "intra_node_link");
  impl_->stated_inter_node_link = stated(s, "inter_node_link");
  impl_->arch = nccl_arch(s.cluster.gpu.name);
  impl_->nvlink_family = nvlink_family_ratio(s.cluster.gpu.name);
  impl_->nvlinks = nvlinks_per_gpu(impl_->arch, s.cluster.intra_node_bandwidth_Bps);
  if (e.terms.gemm_shapes) {
    impl_->gemm_bf16 = published_gemm_fit(s.cluster.gpu.name, GemmPrecision::BF16);
    impl_->gemm_fp8 = published_gemm_fit(s.cluster.gpu.name, GemmPrecision::FP8);
  }
  for (const auto& p : impl_->calibration.intra_node)
    if (p.op == "send_recv") impl_->send_recv_measured_intra = true;
  for (const auto& p : impl_->calibration.inter_node)
    if (p.op == "send_recv") impl_->send_recv_measured_inter = true;
  const int world = std::max(1, s.world_size());
  impl_->slowdown.assign(static_cast<std::size_t>(world), 1.0);
  for (std::size_t i = 0; i < s.cluster.faults.size(); ++i) {
    const Fault& f = s.cluster.faults[i];
    if (f.kind != Fault::Kind::Straggler) continue;
    const std::string field = "cluster.faults[" + std::to_string(i) + "]";
    if (f.rank < 0 || f.rank >= world)
      throw std::invalid_argument(field + ".rank: " + std::to_string(f.rank) + " is outside 0.." +
                                  std::to_string(world - 1));
    if (!(f.slowdown >= 1.0))
      throw std::invalid_argument(field + ".slowdown: must be >= 1, got " + std::to_string(f.slowdown));
    impl_->slowdown[static_cast<std::size_t>(f.rank)] *= f.slowdown;
  }
}

CostModel::~CostModel() = default;
CostModel::CostModel(CostModel&&) noexcept = default;
CostModel& CostModel::operator=(CostModel&&) noexcept = default;

const Scenario& CostModel::scenario() const { return impl_->scenario; }

const Calibration& CostModel::calibration() const { return impl_->calibration; }

double CostModel::kernel_overhead_s() const {
  return impl_->calibration.kernel_overhead_s.value_or(cost_defaults::kKernelOverhead_s);
}

double CostModel::straggler_slowdown(int rank) const {
  if (rank < 0 || static_cast<std::size_t>(rank) >= impl_->slowdown.size()) return 1.0;
  return impl_->slowdown[static_cast<std::size_t>(rank)];
}

double CostModel::attention_efficiency(Pass p, const AttentionShape& s) const {
  const bool causal = is_causal_section(s.section);
  const int head_dim = s.head_dim_qk;
  const auto& e = impl_->scenario.cluster.efficiency;
  const double plateau = p == Pass::Forward ? e.attention_forward : e.attention_backward;
  const bool stated_plateau = p == Pass::Forward ? impl_->stated_attention_forward : impl_->stated_attention_backward;
  // Calibration table: entries of the same pass, head dim and mask class cover the shape.
  std::vector<std::pair<double, double>> pts;
  for (const auto& c : impl_->calibration.attention)
    if (c.pass == p && c.head_dim == head_dim && c.causal == causal)
      pts.emplace_back(std::sqrt(c.q_len * c.kv_len), c.efficiency);
  if (!pts.empty()) {
    const double len = std::sqrt(static_cast<double>(std::max<std::int64_t>(1, s.q_len)) *
                                 static_cast<double>(std::max<std::int64_t>(1, s.kv_len)));
    const double here = interpolate_log_x(pts, len);
    return stated_plateau ? scale_stated_plateau(plateau, here, curve_plateau(std::move(pts))) : here;
  }
  if (e.terms.attention_shapes) {
    const std::string& gpu = impl_->scenario.cluster.gpu.name;
    if (auto v = published_attention_efficiency(gpu, e.attention_kernel, p, causal, head_dim,
                                                static_cast<double>(s.q_len), static_cast<double>(s.kv_len))) {
      if (!stated_plateau) return *v;
      const double longest = published_attention_efficiency(gpu, e.attention_kernel, p, causal, head_dim,
                                                             kPublishedAttentionLongest_tokens,
                                                             kPublishedAttentionLongest_tokens)
                                 .value_or(*v);
      return scale_stated_plateau(plateau, *v, longest);
    }
  }
  const double half = p == Pass::Forward ? cost_defaults::kAttentionForwardHalfLen_tokens
                                         : cost_defaults::kAttentionBackwardHalfLen_tokens;
  return plateau * falloff(static_cast<double>(s.q_len), half) * falloff(static_cast<double>(s.kv_len), half);
}

double CostModel::gemm_efficiency(double flops) const {
  const auto& table = impl_->calibration.gemm;
  if (!table.empty() && flops > 0) {
    std::vector<std::pair<double, double>> pts;
    for (const auto& g : table) pts.emplace_back(g.flops, g.efficiency);
    const double here = interpolate_log_x(pts, flops);
    return impl_->stated_gemm ? scale_stated_plateau(impl_->scenario.cluster.efficiency.gemm, here, curve_plateau(std::move(pts)))
                              : here;
  }
  return impl_->scenario.cluster.efficiency.gemm;
}

double CostModel::gemm_efficiency(double flops, std::string_view label, GemmPrecision p) const {
  const auto& fit = p == GemmPrecision::FP8 ? impl_->gemm_fp8 : impl_->gemm_bf16;
  if (!impl_->calibration.gemm.empty() || !fit || !(flops > 0)) return gemm_efficiency(flops);
  const std::optional<GemmShape> shape = gemm_shape_of(impl_->scenario, label);
  const double eff = gemm_shape_efficiency(*fit, shape ? *shape : cube_gemm(flops), impl_->scenario.cluster.gpu.sm_count);
  // A stated efficiency.gemm is the plateau: the fit's shape fall-off scales it, never replaces it.
  return impl_->stated_gemm ? scale_stated_plateau(impl_->scenario.cluster.efficiency.gemm, eff, fit->plateau) : eff;
}

GemmPrecision CostModel::gemm_precision(std::string_view label) const {
  const Scenario& s = impl_->scenario;
  if (!s.fp8_enabled() || !(s.cluster.gpu.fp8_flops > 0)) return GemmPrecision::BF16;
  return s.cluster.efficiency.terms.fp8_work && !fp8_gemm_label(label) ? GemmPrecision::BF16 : GemmPrecision::FP8;
}

double CostModel::compute_seconds(const TaskGraph& g, const Task& t) const {
  const bool attention = (t.kind == TaskKind::AttentionForward || t.kind == TaskKind::AttentionBackward) &&
                         t.attention != kNone;
  const double eff = attention ? attention_efficiency(t.kind == TaskKind::AttentionForward ? Pass::Forward : Pass::Backward,
                                                      g.attention_of(t))
                               : 0.0;
  return compute_seconds(g, t, eff);
}

double CostModel::compute_seconds(const TaskGraph& g, const Task& t, double attention_eff) const {
  const auto& gpu = impl_->scenario.cluster.gpu;
  const auto& e = impl_->scenario.cluster.efficiency;
  // FP8 (Transformer Engine recipe): GEMMs of TE's modules at the FP8 peak (gemm_precision);
  // attention stays bf16 unless fp8_dot_product_attention is set, and then runs at FP8 attention's
  // published rate (`fp8_work`; without the term: the same fraction of the FP8 peak).
  const bool fp8 = impl_->scenario.fp8_enabled() && gpu.fp8_flops > 0;
  const bool fp8_attention = fp8 && impl_->scenario.model.fp8_dot_product_attention;
  const double attention_peak = !fp8_attention ? gpu.bf16_flops
                                : e.terms.fp8_work ? gpu.bf16_flops * kFp8AttentionSpeedup
                                                   : gpu.fp8_flops;
  double work_s = 0;
  switch (t.kind) {
    case TaskKind::AttentionForward:
    case TaskKind::AttentionBackward: {
      const Pass p = t.kind == TaskKind::AttentionForward ? Pass::Forward : Pass::Backward;
      double eff = p == Pass::Forward ? e.attention_forward : e.attention_backward;
      if (t.attention != kNone) eff = attention_eff;
      work_s = t.flops > 0 ? t.flops / (attention_peak * eff) : 0.0;
      break;
    }
    case TaskKind::Gemm: {
      if (!(t.flops > 0)) break;
      const std::string_view label = g.size() > 0 ? g.label(t) : std::string_view{};
      const GemmPrecision p = gemm_precision(label);
      const double peak = p == GemmPrecision::FP8 ? gpu.fp8_flops : gpu.bf16_flops;
      work_s = t.flops / (peak * gemm_efficiency(t.flops, label, p));
      break;
    }
    case TaskKind::Copy:
    case TaskKind::LseMerge:
    case TaskKind::OutCorrection:
      work_s = t.bytes / (gpu.hbm_Bps * e.memory);
      break;
    default:
      throw std::invalid_argument(std::string("CostModel::compute_seconds: task ") + g.display_name(t) +
                                  " is communication (" + to_string(t.kind) + "), not compute");
  }
  return (kernel_overhead_s() + work_s) * straggler_slowdown(t.rank);
}

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
