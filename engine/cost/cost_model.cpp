// CostModel: see docs/metrics.md for every formula and the public measurements behind the constants.
#include "engine/cost/cost_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engine/cost/calibration.h"
#include "engine/cost/cost_model_impl.h"
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

namespace {

bool is_causal_section(MaskSection m) {
  return m == MaskSection::Diagonal || m == MaskSection::Causal || m == MaskSection::BottomRight;
}

double falloff(double len, double half_len) { return len <= 0 ? 0.0 : len / (len + half_len); }

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
  double eff = gemm_shape_efficiency(*fit, shape ? *shape : cube_gemm(flops), impl_->scenario.cluster.gpu.sm_count);
  // The pass's own layouts (dgrad, wgrad against the forward), and the recipe's own FP8 kernel
  // (block-scaled MXFP8 on Blackwell) relative to per-tensor FP8.
  const GemmPass pass = gemm_pass_of(label);
  eff *= gemm_pass_rate(*fit, pass);
  if (p == GemmPrecision::FP8)
    eff *= fp8_recipe_gemm_rate(impl_->scenario.cluster.gpu.name, impl_->scenario.model.fp8_recipe, pass);
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

}  // namespace hcpsim
