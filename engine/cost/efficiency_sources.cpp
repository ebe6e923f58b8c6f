// Which value the cost model uses for each efficiency and where it came from. Mirrors the
// resolution order of cost_model.cpp: stated (scenario, override) > calibration > published table >
// hardware preset > built-in default.
#include "engine/cost/efficiency_sources.h"

#include <cstdio>
#include <string>

#include "engine/cost/attention_tables.h"
#include "engine/cost/calibration.h"
#include "engine/cost/cost_defaults.h"
#include "engine/cost/gemm_efficiency.h"

namespace hcpsim {
namespace {

std::string number(double v, const char* format) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// The entry of a value the user may state: stated wins; else what `fallback` says.
EfficiencySource entry(const Scenario& s, const char* field, double value, ValueOrigin fallback, std::string detail) {
  const FieldOrigin o = field_origin(s, std::string("cluster.efficiency.") + field);
  EfficiencySource e{field, value, fallback, std::move(detail)};
  if (is_stated(o.origin) || fallback == ValueOrigin::Default) {
    e.origin = o.origin;
    e.detail = o.detail + (o.detail.empty() || e.detail.empty() ? "" : "; ") + e.detail;
  }
  return e;
}

EfficiencySource attention(const CostModel& cost, Pass p) {
  const Scenario& s = cost.scenario();
  const auto& e = s.cluster.efficiency;
  const bool fwd = p == Pass::Forward;
  const char* field = fwd ? "attention_forward" : "attention_backward";
  const bool causal = s.model.attn_mask_type == MaskType::Causal;
  const int hd = s.head_dim();
  const double stated_value = fwd ? e.attention_forward : e.attention_backward;
  const std::string mask = std::string(causal ? "causal" : "no mask") + ", head dim " + std::to_string(hd);
  bool measured = false;
  double measured_plateau = 0, measured_len = 0;
  for (const auto& c : cost.calibration().attention) {
    if (c.pass != p || c.head_dim != hd || c.causal != causal) continue;
    const double len = c.q_len * c.kv_len;
    if (!measured || len > measured_len) measured_plateau = c.efficiency, measured_len = len;
    measured = true;
  }
  if (measured) {
    EfficiencySource out = entry(s, field, measured_plateau, ValueOrigin::Calibration,
                                 "shape dependence from calibration file " + s.cluster.calibration_path + " (" + mask + ")");
    if (is_stated(out.origin)) out.value = stated_value;
    return out;
  }
  const std::string table = published_attention_table(s.cluster.gpu.name, e.attention_kernel);
  if (e.terms.attention_shapes && !table.empty()) {
    const double plateau = published_attention_efficiency(s.cluster.gpu.name, e.attention_kernel, p, causal, hd,
                                                          kPublishedAttentionLongest_tokens,
                                                          kPublishedAttentionLongest_tokens)
                               .value_or(stated_value);
    EfficiencySource out = entry(s, field, plateau, ValueOrigin::PublishedTable, table + " (" + mask + ")");
    if (is_stated(out.origin)) {
      out.value = stated_value;
      out.detail += "; shape fall-off of that table, relative to its 16k-token value";
    }
    return out;
  }
  const double half = fwd ? cost_defaults::kAttentionForwardHalfLen_tokens : cost_defaults::kAttentionBackwardHalfLen_tokens;
  return entry(s, field, stated_value, ValueOrigin::Default,
               "x q/(q+" + number(half, "%.0f") + ") x kv/(kv+" + number(half, "%.0f") + ") short-chunk fall-off");
}

EfficiencySource gemm(const CostModel& cost) {
  const Scenario& s = cost.scenario();
  const auto& table = cost.calibration().gemm;
  const std::optional<GemmKernelFit> fit =
      s.cluster.efficiency.terms.gemm_shapes ? published_gemm_fit(s.cluster.gpu.name, GemmPrecision::BF16) : std::nullopt;
  if (table.empty() && fit) {
    std::string detail = "published GEMM fit of " + s.cluster.gpu.name + " (BF16 plateau; gemm_shapes term); dgrad / wgrad at " +
                         number(fit->dgrad_rate, "%.3f") + " / " + number(fit->wgrad_rate, "%.3f") + " of the forward's rate";
    const bool fp8 = s.fp8_enabled() && s.cluster.gpu.fp8_flops > 0;
    if (const auto fp8_fit = fp8 ? published_gemm_fit(s.cluster.gpu.name, GemmPrecision::FP8) : std::nullopt)
      detail += " (FP8: " + number(fp8_fit->dgrad_rate, "%.3f") + " / " + number(fp8_fit->wgrad_rate, "%.3f") + ")";
    detail += ", Transformer Engine GEMM-profiling guide";
    if (fp8 && fp8_recipe_gemm_rate(s.cluster.gpu.name, s.model.fp8_recipe, GemmPass::Forward) != 1.0)
      detail += "; " + s.model.fp8_recipe + " FP8 GEMMs at " +
                number(fp8_recipe_gemm_rate(s.cluster.gpu.name, s.model.fp8_recipe, GemmPass::Forward), "%.3f") + " / " +
                number(fp8_recipe_gemm_rate(s.cluster.gpu.name, s.model.fp8_recipe, GemmPass::Dgrad), "%.3f") + " / " +
                number(fp8_recipe_gemm_rate(s.cluster.gpu.name, s.model.fp8_recipe, GemmPass::Wgrad), "%.3f") +
                " of per-tensor FP8's rate (forward / dgrad / wgrad; Transformer Engine GEMM-profiling guide, B300)";
    EfficiencySource out = entry(s, "gemm", fit->plateau, ValueOrigin::PublishedTable, detail);
    if (is_stated(out.origin)) {
      out.value = s.cluster.efficiency.gemm;
      out.detail += "; shape fall-off of that fit, relative to its plateau";
    }
    return out;
  }
  if (table.empty()) return entry(s, "gemm", s.cluster.efficiency.gemm, ValueOrigin::Default, "every GEMM size");
  double largest = 0, plateau = 0;
  for (const auto& g : table)
    if (g.flops > largest) largest = g.flops, plateau = g.efficiency;
  EfficiencySource out = entry(s, "gemm", plateau, ValueOrigin::Calibration,
                               "size dependence from calibration file " + s.cluster.calibration_path);
  if (is_stated(out.origin)) out.value = s.cluster.efficiency.gemm;
  return out;
}

EfficiencySource link(const CostModel& cost, LinkClass c) {
  const Scenario& s = cost.scenario();
  const bool intra = c == LinkClass::IntraNode;
  const char* field = intra ? "intra_node_link" : "inter_node_link";
  const char* bandwidth_field = intra ? "cluster.intra_node.bandwidth" : "cluster.inter_node.nic_bandwidth";
  const double nominal = intra ? s.cluster.intra_node_bandwidth_Bps : s.cluster.nic_bandwidth_Bps;
  const FieldOrigin bw = field_origin(s, bandwidth_field);
  std::string detail = "send/recv plateau of " + number(nominal / 1e9, "%.4g") + " GB/s nominal (" +
                       to_string(bw.origin) + (bw.detail.empty() ? "" : " " + bw.detail) + ")";
  if (s.cluster.efficiency.terms.bandwidth_curves) detail += "; each NCCL op scaled by its bandwidth curve";
  const bool measured = !(intra ? cost.calibration().intra_node : cost.calibration().inter_node).empty();
  return entry(s, field, cost.link_plateau(TaskKind::SendRecv, c),
               measured ? ValueOrigin::Calibration : ValueOrigin::Default,
               measured ? "message-size curve from calibration file " + s.cluster.calibration_path + "; " + detail
                        : detail);
}

// A term parameter a calibration file may carry (comm_hbm_interference, nccl_launch, ring_step_sync).
EfficiencySource term_parameter(const CostModel& cost, const char* field, const char* quantity, double value,
                                bool calibrated) {
  const Scenario& s = cost.scenario();
  EfficiencySource out = entry(s, field, value, calibrated ? ValueOrigin::Calibration : ValueOrigin::Default,
                               calibrated ? "calibration file " + s.cluster.calibration_path : "");
  out.quantity = quantity;
  return out;
}

}  // namespace

EfficiencySources efficiency_sources(const CostModel& cost) {
  const Scenario& s = cost.scenario();
  const auto& e = s.cluster.efficiency;
  const Calibration& cal = cost.calibration();
  EfficiencySources out;
  out.push_back(attention(cost, Pass::Forward));
  out.push_back(attention(cost, Pass::Backward));
  out.push_back(gemm(cost));
  out.push_back(entry(s, "memory", e.memory, ValueOrigin::Default, "HBM bandwidth share of copies, merges and corrections"));
  out.push_back(link(cost, LinkClass::IntraNode));
  out.push_back(link(cost, LinkClass::InterNode));
  out.push_back(term_parameter(cost, "comm_hbm_interference", "comm_hbm_interference", e.comm_hbm_interference,
                               cal.comm_hbm_interference.has_value()));
  out.push_back(term_parameter(cost, "nccl_launch", "nccl_launch_s", e.nccl_launch_s, cal.nccl_launch_s.has_value()));
  out.push_back(term_parameter(cost, "ring_step_sync", "ring_step_sync_s", e.ring_step_sync_s,
                               cal.ring_step_sync_s.has_value()));
  return out;
}

}  // namespace hcpsim
