#include "engine/fold/fold_plan.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/layout/rank_layout.h"

namespace hcpsim {
namespace {

// Group kinds the layer-graph builders use: every communication of one layer stays inside them.
constexpr GroupKind kLayerGroups[] = {GroupKind::TP,      GroupKind::CP,      GroupKind::TP_CP,
                                      GroupKind::HCP_A2A, GroupKind::HCP_P2P, GroupKind::HP_ULYSSES,
                                      GroupKind::HP_COLOSSAL};

int find_root(std::vector<int>& parent, int x) {
  while (parent[static_cast<std::size_t>(x)] != x) {
    parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
    x = parent[static_cast<std::size_t>(x)];
  }
  return x;
}

std::string rank_span(const std::vector<int>& g) {
  const auto [lo, hi] = std::minmax_element(g.begin(), g.end());
  return std::to_string(*lo) + "-" + std::to_string(*hi);
}

// Nodes of the unit that holds node 0: nodes joined by TP x CP groups, closed. Also finds a node
// crossed by the inter-node traffic of two groups (for the note); -1 when there is none.
struct Units {
  int unit_nodes = 0;       // nodes in the unit of node 0 (they are 0..unit_nodes-1 when contiguous)
  bool contiguous = false;  // the unit of node 0 is nodes 0..unit_nodes-1
  int shared_node = -1;     // a node that two multi-node groups both have ranks on
  int shared_group_a = -1, shared_group_b = -1;
  int groups_in_unit = 0;
};

Units find_units(const RankLayout& layout) {
  const int gpn = layout.gpus_per_node();
  const int nodes = layout.nodes();
  std::vector<int> parent(static_cast<std::size_t>(nodes));
  std::iota(parent.begin(), parent.end(), 0);
  Units u;
  const auto& groups = layout.groups(GroupKind::TP_CP);
  std::vector<int> multi_node_group_on(static_cast<std::size_t>(nodes), -1);
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const auto& g = groups[gi];
    const int n0 = g.front() / gpn;
    bool multi = false;
    for (int r : g) {
      const int n = r / gpn;
      if (n != n0) multi = true;
      const int a = find_root(parent, n0), b = find_root(parent, n);
      if (a != b) parent[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
    }
    if (!multi) continue;
    for (int r : g) {
      auto& on = multi_node_group_on[static_cast<std::size_t>(r / gpn)];
      if (on < 0) on = static_cast<int>(gi);
      else if (on != static_cast<int>(gi) && u.shared_node < 0) {
        u.shared_node = r / gpn;
        u.shared_group_a = on;
        u.shared_group_b = static_cast<int>(gi);
      }
    }
  }
  int count = 0, last = -1;
  for (int n = 0; n < nodes; ++n)
    if (find_root(parent, n) == 0) {
      ++count;
      last = n;
    }
  u.unit_nodes = count;
  u.contiguous = last == count - 1;
  for (const auto& g : groups)
    if (find_root(parent, g.front() / gpn) == 0) ++u.groups_in_unit;
  return u;
}

// The unit scenario: pp 1, one unit's nodes, the data-parallel replicas that fit on them. The batch
// is not composed on it (the step is composed from the whole job).
Scenario unit_scenario(const Scenario& full, int unit_nodes) {
  Scenario t = full;
  t.model.pipeline_model_parallel_size = 1;
  t.model.virtual_pipeline_model_parallel_size = 1;
  t.train.global_batch_size = 0;
  t.cluster.nodes = unit_nodes;
  return t;
}

// True when every unit of `full` is laid out as `unit` is: rank r of the job behaves as rank
// r mod S of the unit (S ranks), on node node(r) - (r div S) x unit nodes, in the same GPU slot,
// with every layer group mapped member by member. `why` says what differs otherwise.
bool units_alike(const RankLayout& full, const RankLayout& unit, std::string& why) {
  const int S = unit.world_size();
  const int unit_nodes = unit.nodes();
  if (S <= 0 || full.world_size() % S != 0) {
    why = "the job's " + std::to_string(full.world_size()) + " ranks are not a whole number of units of " +
          std::to_string(S);
    return false;
  }
  for (int r = 0; r < full.world_size(); ++r) {
    const RankCoord& a = full.coord(r);
    const RankCoord& b = unit.coord(r % S);
    const int k = r / S;
    if (a.gpu != b.gpu || a.node != b.node + k * unit_nodes || a.tp != b.tp || a.cp != b.cp || a.a2a != b.a2a ||
        a.ring != b.ring) {
      why = "rank " + std::to_string(r) + " has other coordinates than rank " + std::to_string(r % S) +
            " of the first unit (dist.order " + full.order() + ")";
      return false;
    }
  }
  for (GroupKind kind : kLayerGroups) {
    const auto& gs = full.groups(kind);
    if (gs.empty() != unit.groups(kind).empty()) {
      why = std::string("the ") + to_string(kind) + " groups differ";
      return false;
    }
    for (const auto& g : gs) {
      const int k = g.front() / S;
      const auto& h = unit.group_of(kind, g.front() % S);
      bool same = h.size() == g.size();
      for (std::size_t i = 0; same && i < g.size(); ++i) same = g[i] / S == k && g[i] % S == h[i];
      if (!same) {
        why = std::string("the ") + to_string(kind) + " group of ranks " + rank_span(g) +
              " does not repeat the first unit's";
        return false;
      }
    }
  }
  return true;
}

}  // namespace

FoldPlan plan_fold(const Scenario& full, bool allow, const std::string& unfold_reason) {
  FoldPlan p;
  p.simulated = full;
  p.represented_ranks = full.world_size();
  p.simulated_ranks = full.world_size();
  if (full.simulation.fold == FoldMode::Off) {
    p.note = "simulation.fold is off: every rank is simulated";
    return p;
  }
  p.enabled = true;
  if (!allow) {   // said only when the job would have been folded
    const FoldPlan allowed = plan_fold(full, true);
    if (allowed.folded) {
      p.note = "every rank is simulated: " +
               (unfold_reason.empty() ? std::string("folding was not allowed for this run") : unfold_reason);
      p.unit_ranks_if_allowed = allowed.simulated_ranks;
    }
    return p;
  }
  if (!full.cluster.faults.empty()) {
    p.note = "cluster.faults name ranks and nodes of the whole job: every rank is simulated";
    return p;
  }
  std::optional<RankLayout> built;
  try {
    built.emplace(RankLayout::from_scenario(full));
  } catch (const std::invalid_argument&) {
    return p;   // the builders report the layout error with its field
  }
  const RankLayout& layout = *built;
  const Units u = find_units(layout);
  const int gpn = full.cluster.gpus_per_node;
  const auto& tpcp = layout.groups(GroupKind::TP_CP);
  p.links_shared = u.shared_node >= 0;
  auto shared_text = [&] {
    return "TP x CP groups of ranks " + rank_span(tpcp[static_cast<std::size_t>(u.shared_group_a)]) + " and " +
           rank_span(tpcp[static_cast<std::size_t>(u.shared_group_b)]) + " both send inter-node traffic through node " +
           std::to_string(u.shared_node) + " (its NICs and uplink)";
  };
  if (u.unit_nodes >= layout.nodes()) {
    if (p.links_shared)
      p.note = "not folded: " + shared_text() +
               "; groups that share links reach every node of the job: every rank is simulated";
    return p;
  }
  if (!u.contiguous || layout.nodes() % u.unit_nodes != 0) {
    p.note = "not folded: the nodes of one TP x CP group and its neighbours (" + std::to_string(u.unit_nodes) +
             " nodes) do not repeat in blocks of whole nodes: every rank is simulated";
    return p;
  }
  Scenario unit = unit_scenario(full, u.unit_nodes);
  std::string why;
  try {
    const RankLayout unit_layout = RankLayout::from_scenario(unit);
    if (!units_alike(layout, unit_layout, why)) {
      p.note = "not folded: " + why + ": every rank is simulated";
      return p;
    }
  } catch (const std::invalid_argument& e) {
    p.note = std::string("not folded: ") + e.what() + ": every rank is simulated";
    return p;
  }
  p.folded = true;
  p.simulated = std::move(unit);
  p.simulated_ranks = u.unit_nodes * gpn;
  p.replicas = p.represented_ranks / p.simulated_ranks;
  p.unit_nodes = u.unit_nodes;
  p.groups_per_unit = u.groups_in_unit;
  if (p.links_shared)
    p.note = "the " + std::to_string(u.groups_in_unit) + " TP x CP groups of each unit are simulated together: " +
             shared_text();
  return p;
}

}  // namespace hcpsim
