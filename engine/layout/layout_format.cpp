#include "engine/layout/layout_format.h"

#include <nlohmann/json.hpp>
#include <sstream>

namespace hcpsim {

namespace {

constexpr GroupKind kKinds[] = {GroupKind::TP, GroupKind::CP, GroupKind::DP, GroupKind::PP,
                                GroupKind::DP_CP, GroupKind::TP_CP, GroupKind::HCP_A2A, GroupKind::HCP_P2P,
                                GroupKind::HP_ULYSSES, GroupKind::HP_COLOSSAL};

std::string list_str(const std::vector<int>& g) {
  std::string s = "[";
  for (std::size_t i = 0; i < g.size(); ++i) s += (i ? "," : "") + std::to_string(g[i]);
  return s + "]";
}

bool is_hcp(GroupKind k) { return k == GroupKind::HCP_A2A || k == GroupKind::HCP_P2P; }
bool is_hp(GroupKind k) { return k == GroupKind::HP_ULYSSES || k == GroupKind::HP_COLOSSAL; }
// A group kind this layout does not have (hierarchical or HyperParallel sub-groups).
bool absent(const RankLayout& L, GroupKind k) { return (is_hcp(k) && !L.hierarchical()) || (is_hp(k) && !L.hyperparallel()); }

}  // namespace

std::string layout_to_json(const RankLayout& L) {
  nlohmann::ordered_json j;
  j["world_size"] = L.world_size();
  j["order"] = L.order();
  nlohmann::ordered_json groups = nlohmann::ordered_json::object();
  for (GroupKind k : kKinds) {
    if (absent(L, k)) continue;
    groups[to_string(k)] = L.groups(k);
  }
  j["groups"] = std::move(groups);
  if (L.hyperparallel())
    j["hyperparallel"] = {{"ulysses_degree", L.hp_ulysses()}, {"colossal_size", L.hp_colossal()},
                          {"mesh_dim_names", L.params().hp_mesh_dim_names}};
  nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
  for (const auto& c : L.ranks()) {
    ranks.push_back({{"rank", c.rank}, {"node", c.node}, {"gpu", c.gpu}, {"tp", c.tp}, {"cp", c.cp},
                     {"dp", c.dp}, {"pp", c.pp}, {"a2a", c.a2a}, {"ring", c.ring}});
  }
  j["ranks"] = std::move(ranks);
  return j.dump();
}

std::string ring_to_text(const RankLayout& L, const std::vector<int>& ring) {
  std::ostringstream os;
  int intra = 0, inter = 0;
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const auto& c = L.coord(ring[i]);
    os << 'r' << c.rank << "(n" << c.node << ") -> ";
    if (ring.size() > 1) {
      const int next = ring[(i + 1) % ring.size()];
      (L.coord(next).node == c.node ? intra : inter) += 1;
    }
  }
  os << 'r' << ring.front() << "   [" << intra << " intra, " << inter << " inter hops]";
  return os.str();
}

std::string layout_to_text(const RankLayout& L, int max_groups, int max_nodes) {
  std::ostringstream os;
  os << "world_size " << L.world_size() << " = tp " << L.tp() << " x cp " << L.cp() << " x dp " << L.dp()
     << " x pp " << L.pp() << ", order " << L.order() << ", " << L.nodes() << " node(s) x "
     << L.gpus_per_node() << " GPUs\n";
  if (L.hierarchical())
    os << "hierarchical_context_parallel_sizes [" << L.a2a_size() << ", " << L.ring_size()
       << "]: a2a groups of " << L.a2a_size() << " (contiguous in the CP list), rings of "
       << L.ring_size() << " (strided)\n";
  if (L.hyperparallel()) {
    const auto& n = L.params().hp_mesh_dim_names;
    os << "HyperParallel CP mesh (co x ds) = (" << L.hp_colossal() << " x " << L.hp_ulysses()
       << "): Ulysses all-to-all groups of " << L.hp_ulysses() << " (ds" << (n.size() == 2 ? " '" + n[1] + "'" : "")
       << ", contiguous in the CP list), Colossal K/V all-gather groups of " << L.hp_colossal() << " (co"
       << (n.size() == 2 ? " '" + n[0] + "'" : "") << ", strided); FSDP mesh = flattened (dp_shard, cp)\n";
  }
  os << (L.hyperparallel() ? "\nGroups (Megatron group_desc, creation order; HyperParallel sub-groups last):\n"
                           : "\nGroups (Megatron group_desc, creation order):\n");
  for (GroupKind k : kKinds) {
    if (absent(L, k)) continue;
    const auto& gs = L.groups(k);
    os << "  " << megatron_group_name(k) << " (" << to_string(k) << "): " << gs.size() << " group(s) of "
       << (gs.empty() ? 0 : gs.front().size()) << "\n    ";
    const std::size_t shown = std::min<std::size_t>(gs.size(), static_cast<std::size_t>(max_groups));
    std::size_t width = 4;
    for (std::size_t g = 0; g < shown; ++g) {
      const std::string s = gs[g].size() > 32 ? "[" + std::to_string(gs[g].front()) + ",...," +
                                                    std::to_string(gs[g].back()) + "]"
                                              : list_str(gs[g]);
      if (width + s.size() > 100) {
        os << "\n    ";
        width = 4;
      }
      os << s << ' ';
      width += s.size() + 1;
    }
    if (shown < gs.size()) os << "... (" << gs.size() - shown << " more)";
    os << '\n';
  }

  os << (L.hierarchical()
             ? "\nNode map (rN = global rank; tp/cp index; a2a/ring = group index:position in it):\n"
             : "\nNode map (rN = global rank; tp/cp index; cp-group = CP group index, the a2a/ring group of flat CP):\n");
  const int nodes_shown = std::min(L.nodes(), max_nodes);
  for (int n = 0; n < nodes_shown; ++n) {
    os << "  node " << n << ":\n";
    for (int g = 0; g < L.gpus_per_node(); ++g) {
      const int r = n * L.gpus_per_node() + g;
      if (r >= L.world_size()) break;
      const auto& c = L.coord(r);
      os << "    gpu " << g << "  r" << r << "  tp " << c.tp << " cp " << c.cp;
      if (L.dp() > 1) os << " dp " << c.dp;
      if (L.pp() > 1) os << " pp " << c.pp;
      if (L.hierarchical())
        os << "  a2a " << L.group_index_of(GroupKind::HCP_A2A, r) << ":" << c.a2a << "  ring "
           << L.group_index_of(GroupKind::HCP_P2P, r) << ":" << c.ring;
      else
        os << "  cp-group " << L.group_index_of(GroupKind::CP, r);
      os << '\n';
    }
  }
  if (nodes_shown < L.nodes()) os << "  ... (" << L.nodes() - nodes_shown << " more nodes)\n";

  const GroupKind ring_kind = L.hierarchical() ? GroupKind::HCP_P2P : GroupKind::CP;
  const auto& rings = L.groups(ring_kind);
  if (L.cp() > 1 && !rings.empty() && rings.front().size() > 1) {
    os << "\nRings (" << to_string(ring_kind) << ", forward direction as Transformer Engine sends):\n";
    int intra = 0, inter = 0;
    for (const auto& g : rings)
      for (std::size_t i = 0; i < g.size(); ++i)
        (L.coord(g[i]).node == L.coord(g[(i + 1) % g.size()]).node ? intra : inter) += 1;
    const std::size_t shown = std::min<std::size_t>(rings.size(), static_cast<std::size_t>(max_nodes));
    for (std::size_t i = 0; i < shown; ++i) {
      if (rings[i].size() > 64) {
        os << "  ring " << i << ": " << rings[i].size() << " ranks r" << rings[i].front() << " .. r"
           << rings[i].back() << '\n';
        continue;
      }
      os << "  ring " << i << ": " << ring_to_text(L, rings[i]) << '\n';
    }
    if (shown < rings.size()) os << "  ... (" << rings.size() - shown << " more rings)\n";
    os << "  all rings: " << intra << " intra-node hops, " << inter << " inter-node hops\n";
  }
  return os.str();
}

}  // namespace hcpsim
