// The table of HyperParallel styles and the planner's words for their modes.
#include "engine/schedule/hp_styles.h"

#include <array>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "engine/layout/rank_layout.h"

namespace hcpsim::schedule {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::string num(double v, int prec) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", prec, v);
  return buf;
}

// ulysses_degree unset, 1, and every divisor of cp in between; with `balanced`, also 1 with
// load_balance.
std::vector<HpModeChoice> ulysses_modes(int cp, bool balanced) {
  std::vector<HpModeChoice> modes{{0, false}, {1, false}};
  if (balanced) modes.push_back({1, true});
  for (int u = 2; u < cp; ++u)
    if (cp % u == 0) modes.push_back({u, false});
  return modes;
}

// Async with load_balance falls back to the synchronous style (a duplicate): not tried.
std::vector<HpModeChoice> sync_modes(int cp) { return ulysses_modes(cp, true); }
std::vector<HpModeChoice> async_modes(int cp) { return ulysses_modes(cp, false); }
// DSA is Colossal only.
std::vector<HpModeChoice> colossal_only(int) { return {{1, false}}; }

std::string no_words(const Scenario&, int) { return ""; }

std::string async_words(const Scenario& s, int cp) {
  if (!s.hyperparallel.async_effective()) return "";
  return s.hyperparallel.mode(cp) == HpMode::Hybrid ? ", all-to-alls started after the projections"
                                                    : ", collectives started after the projections";
}

std::string dsa_words(const Scenario& s, int) { return ", DSA top-k " + std::to_string(s.model.dsa.index_topk); }

std::string async_dsa_words(const Scenario& s, int cp) {
  return dsa_words(s, cp) + " with the key-side gathers started from their projections";
}

// In the order of HpStyle.
constexpr std::array<HpStyleDescriptor, 4> kStyles = {{
    {HpStyle::ContextParallel, "", true, sync_modes, no_words},
    {HpStyle::AsyncContextParallel, " async", true, async_modes, async_words},
    {HpStyle::DSA, " dsa", false, colossal_only, dsa_words},
    {HpStyle::AsyncDSA, " async dsa", false, colossal_only, async_dsa_words},
}};

constexpr bool in_style_order() {
  for (std::size_t i = 0; i < kStyles.size(); ++i)
    if (static_cast<std::size_t>(kStyles[i].style) != i) return false;
  return true;
}
static_assert(in_style_order(), "HyperParallel style table: rows out of HpStyle order");

// Whether every group of a kind lies inside one node (rank 0's group stands for all).
bool group_in_one_node(const Scenario& s, GroupKind k) {
  try {
    const RankLayout l = RankLayout::from_scenario(s);
    std::set<int> nodes;
    for (int r : l.group_of(k, 0)) nodes.insert(l.coord(r).node);
    return nodes.size() == 1;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

std::span<const HpStyleDescriptor> hp_styles() { return kStyles; }

const HpStyleDescriptor& hp_style_of(HpStyle style) { return kStyles.at(static_cast<std::size_t>(style)); }

std::string hp_comm_label(const HyperParallelConfig& h, int cp) {
  return std::string("hp-") + to_string(h.mode(cp)) + "-u" + std::to_string(h.ulysses(cp)) + (h.load_balance ? "-lb" : "");
}

std::string hp_label(const HyperParallelConfig& h, int cp) {
  std::string s = std::string("hp") + hp_style_of(h.style).label + " " + to_string(h.mode(cp));
  if (h.mode(cp) == HpMode::Hybrid) s += " u=" + std::to_string(h.ulysses_degree);
  if (h.load_balance) s += " lb";
  return s;
}

std::string hp_title(const Scenario& s) {
  const auto& hp = s.hyperparallel;
  const int cp = s.cp(), u = hp.ulysses(cp);
  std::string t = to_string(hp.style);
  switch (hp.mode(cp)) {
    case HpMode::Ulysses: t += ", pure Ulysses (u=" + std::to_string(cp) + ")"; break;
    case HpMode::Colossal: t += ", pure Colossal (co=" + std::to_string(cp) + ")"; break;
    case HpMode::Hybrid: t += ", hybrid u=" + std::to_string(u) + " x co=" + std::to_string(cp / u); break;
  }
  if (hp.load_balance) t += ", load_balance";
  if (hp.style == HpStyle::AsyncContextParallel && !hp.async_effective()) t += " (synchronous fallback)";
  if (hp.dsa()) t += ", top-k " + std::to_string(s.model.dsa.index_topk);
  return t;
}

std::string hp_explain(const Scenario& s, int cp) {
  const auto& hp = s.hyperparallel;
  const int u = hp.ulysses(cp), co = cp / u;
  const int gt = s.kv_heads_per_tp_rank();
  std::string why = std::string("HyperParallel ") + to_string(hp.style) + " ";
  const std::string a2a_where = group_in_one_node(s, GroupKind::HP_ULYSSES) ? "inside the node" : "across nodes";
  const std::string ag_where = group_in_one_node(s, GroupKind::HP_COLOSSAL) ? "inside the node" : "across nodes";
  // The rank's own K and V after its all-to-all; the all-gather keeps co of them per layer to backward.
  const double m_kv = static_cast<double>(s.model.seq_length) / cp * s.train.micro_batch_size * gt * 2.0 *
                      s.head_dim() * bytes_per_element(s.model.params_dtype);
  switch (hp.mode(cp)) {
    case HpMode::Ulysses:
      why += "pure Ulysses: Q/K/V all-to-all over " + std::to_string(cp) + " ranks " + a2a_where + " (" +
             std::to_string(gt) + " KV heads per TP rank)";
      break;
    case HpMode::Colossal:
      why += "pure Colossal: K/V all-gathered over " + std::to_string(cp) + " ranks " + ag_where + ", " +
             num((co - 1) * m_kv / kMiB, 0) + " MiB more K/V kept per layer until backward";
      if (hp.load_balance) why += ", head-tail load balance";
      break;
    case HpMode::Hybrid:
      why += "hybrid: all-to-all in groups of " + std::to_string(u) + " " + a2a_where + ", then K/V all-gather across " +
             std::to_string(co) + " " + ag_where + " (" + num((co - 1) * m_kv / u / kMiB, 0) +
             " MiB more K/V kept per layer)";
      break;
  }
  return why + hp_style_of(hp.style).explain(s, cp);
}

}  // namespace hcpsim::schedule
