#include "engine/validate/placement_rules.h"

#include <set>
#include <vector>

#include "engine/layout/rank_layout.h"
#include "engine/validate/rule_checker.h"

namespace hcpsim {
namespace {

using namespace validate_rules;

int node_span(const RankLayout& L, const std::vector<int>& g) {
  std::set<int> nodes;
  for (int r : g) nodes.insert(L.coord(r).node);
  return static_cast<int>(nodes.size());
}

// Intra-node hops of every ring of a kind (each group read as a ring in list order).
int intra_hops(const RankLayout& L, const std::vector<std::vector<int>>& rings) {
  int n = 0;
  for (const auto& g : rings)
    for (std::size_t i = 0; i < g.size() && g.size() > 1; ++i)
      n += L.coord(g[i]).node == L.coord(g[(i + 1) % g.size()]).node;
  return n;
}

void add_placement_warnings(const Scenario& s, Checker& c) {
  const auto& m = s.model;
  const int cp = s.cp(), tp = s.tp(), gpn = s.cluster.gpus_per_node;
  const bool hier = uses(s, hierarchical) && m.hierarchical_context_parallel_sizes.size() == 2;
  // Chunk size.
  if (cp > 1 && m.seq_length / cp < 1024)
    c.warning("model.seq_length", "each CP rank holds only " + std::to_string(m.seq_length / cp) +
                                      " tokens (seq_length / cp < 1024): attention kernels run far below peak");
  if (hier) {
    const int A = m.hierarchical_context_parallel_sizes[0], P = m.hierarchical_context_parallel_sizes[1];
    if (A == 1)
      c.warning("model.hierarchical_context_parallel_sizes",
                "a2a size 1: Transformer Engine runs a2a+p2p as plain p2p on the ring group");
    if (P == 1)
      c.warning("model.hierarchical_context_parallel_sizes",
                "p2p ring size 1: Transformer Engine runs a2a+p2p as plain a2a on the a2a group");
  }
  if (s.hyperparallel_cp()) return;   // the a2a and ring placement rules below are for cp_comm_type
  RankLayout L;
  try {
    L = RankLayout::from_scenario(s);
  } catch (const std::exception&) {
    return;   // the size errors above already explain why
  }
  const int h_t = m.num_attention_heads / tp, g_t = s.kv_heads_per_tp_rank();
  const auto& a2a_groups = hier ? L.groups(GroupKind::HCP_A2A) : L.groups(GroupKind::CP);
  if ((hier || uses(s, whole_cp_a2a)) && cp > 1) {
    for (const auto& g : a2a_groups) {
      if (node_span(L, g) > 1) {
        const int a = largest_a2a_in_node(cp, h_t, g_t, tp, gpn);
        c.warning(hier ? "model.hierarchical_context_parallel_sizes" : "model.cp_comm_type",
                  "a2a group " + group_str(g) + " spans " + std::to_string(node_span(L, g)) +
                      " nodes: its all-to-all runs over the inter-node network",
                  {"with tp=" + std::to_string(tp) + " at most " + std::to_string(std::max(1, gpn / tp)) +
                   " CP ranks share a node; " + (a > 1 ? split_hint(a, cp) + " keeps the a2a inside nodes" : std::string("use p2p"))});
        break;
      }
    }
  }
  // Rings whose every hop leaves the node, where a split with a node-local a2a and some intra-node
  // ring hops exists (a2a groups that exactly fill nodes are the intended design and not flagged).
  if ((hier || uses(s, flat_ring)) && cp > 1) {
    const int A = hier ? m.hierarchical_context_parallel_sizes[0] : 1;
    const auto& rings = hier ? L.groups(GroupKind::HCP_P2P) : L.groups(GroupKind::CP);
    const bool a2a_fills_nodes = tp * A == gpn;
    if (!rings.empty() && rings.front().size() > 1 && intra_hops(L, rings) == 0 && !a2a_fills_nodes) {
      for (int a = cp; a >= 1; --a) {
        if (cp % a || h_t % a || g_t % a || a * tp >= gpn || a == A) continue;
        LayoutParams p = L.params();
        p.hcp_sizes = a > 1 ? std::vector<int>{a, cp / a} : std::vector<int>{};
        const RankLayout alt = RankLayout::build(p);
        if (intra_hops(alt, a > 1 ? alt.groups(GroupKind::HCP_P2P) : alt.groups(GroupKind::CP)) > 0) {
          c.warning(hier ? "model.hierarchical_context_parallel_sizes" : "model.cp_comm_type",
                    "every hop of every ring crosses nodes (ring " + group_str(rings.front()) + ")",
                    {a > 1 ? split_hint(a, cp) + " keeps its a2a inside a node and gives the ring intra-node hops"
                           : std::string("a flat ring (cp_comm_type=p2p) has intra-node hops with this tp")});
          break;
        }
      }
    }
  }
}

}  // namespace

Diagnostics check_placement(const Scenario& s) {
  Checker c(s);
  add_placement_warnings(s, c);
  return c.take();
}

}  // namespace hcpsim
