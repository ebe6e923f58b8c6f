#pragma once
// RankLayout: Megatron-Core's RankGenerator and create_hierarchical_groups, reproduced.
//
//   global = t + tp*( c + cp*( d + dp*q ) )          order tp-cp-ep-dp-pp (leftmost = stride 1)
//
//   CP group R = [r0 r1 ... r_{cp-1}]   hcp sizes [A, P]:
//     level 0 (a2a, contiguous):  [R0 R1 .. R_{A-1}] [R_A .. R_{2A-1}] ...      a = i mod A
//     level 1 (p2p ring, strided): [R0 R_A R_2A ..] [R1 R_{A+1} ..] ...          p = i div A
//
// Group lists come in Megatron's creation order and each list in rank order, so a rank's index
// in its list equals its rank inside the torch process group.
#include <array>
#include <string>
#include <vector>

namespace hcpsim {

struct Scenario;

// HP_ULYSSES / HP_COLOSSAL: HyperParallel's CP sub-groups (`hyperparallel:` section): the Ulysses
// all-to-all groups of u ranks, contiguous in the CP list, and the Colossal K/V all-gather groups,
// strided (the 2-D (co, ds) mesh with ds = adjacent ranks).
enum class GroupKind { TP, CP, DP, PP, DP_CP, TP_CP, HCP_A2A, HCP_P2P, HP_ULYSSES, HP_COLOSSAL };
constexpr int kGroupKindCount = 10;
// "tp", "cp", "dp", "pp", "dp_cp", "tp_cp", "hcp_a2a", "hcp_p2p", "hp_ulysses", "hp_colossal"
const char* to_string(GroupKind k);
// Megatron's group_desc, e.g. "TENSOR_MODEL_PARALLEL_GROUP", "HIERARCHICAL_CONTEXT_PARALLEL_GROUP_L0".
const char* megatron_group_name(GroupKind k);

struct RankCoord {
  int rank = 0;
  int node = 0;   // rank div gpus_per_node
  int gpu = 0;    // rank mod gpus_per_node
  int tp = 0, cp = 0, dp = 0, pp = 0;
  int a2a = 0;    // rank inside its level-0 (a2a) group: cp mod A (0 without hierarchical sizes)
  int ring = 0;   // rank inside its level-1 ring: cp div A (= cp index without hierarchical sizes)
};

struct LayoutParams {
  int world_size = 1;
  int gpus_per_node = 8;
  int tp = 1, cp = 1, pp = 1;                 // dp is derived: world / (tp*cp*pp)
  std::string order = "tp-cp-ep-dp-pp";
  std::vector<int> hcp_sizes{};               // [A, P] or empty
  int hp_ulysses = 0;                         // HyperParallel's Ulysses degree u (0 = not HyperParallel)
  std::vector<std::string> hp_mesh_dim_names{};  // names of the (co, ds) dimensions, for display
};

class RankLayout {
 public:
  // Throws std::invalid_argument with Megatron's message when the sizes or order are impossible.
  static RankLayout build(const LayoutParams& p);
  static RankLayout from_scenario(const Scenario& s);

  int world_size() const { return params_.world_size; }
  int gpus_per_node() const { return params_.gpus_per_node; }
  int nodes() const;
  int tp() const { return params_.tp; }
  int cp() const { return params_.cp; }
  int dp() const { return dp_; }
  int pp() const { return params_.pp; }
  bool hierarchical() const { return !params_.hcp_sizes.empty(); }
  // HyperParallel's CP mesh (hp_* groups present); u and the Colossal size cp / u.
  bool hyperparallel() const { return params_.hp_ulysses > 0; }
  int hp_ulysses() const { return hyperparallel() ? params_.hp_ulysses : 1; }
  int hp_colossal() const { return hyperparallel() ? params_.cp / params_.hp_ulysses : params_.cp; }
  int a2a_size() const;   // A (1 without hierarchical sizes)
  int ring_size() const;  // P (cp without hierarchical sizes)
  const std::string& order() const { return params_.order; }
  const LayoutParams& params() const { return params_; }

  const RankCoord& coord(int rank) const { return ranks_.at(static_cast<std::size_t>(rank)); }
  const std::vector<RankCoord>& ranks() const { return ranks_; }

  // All groups of one kind, in Megatron's creation order (empty for hcp_* without sizes).
  const std::vector<std::vector<int>>& groups(GroupKind k) const {
    return groups_[static_cast<std::size_t>(k)];
  }
  // The group of kind k that contains `rank` (ordered), and its index in groups(k).
  const std::vector<int>& group_of(GroupKind k, int rank) const;
  int group_index_of(GroupKind k, int rank) const;

  // Ring neighbours as Transformer Engine computes them (docs/schedules.md "Rank layout"); for a flat ring A = 1, P = cp.
  int ring_next(int rank) const;   // forward send destination: cp_global_ranks[((p+1) mod P)*A + a]
  int ring_prev(int rank) const;   // forward receive source:   cp_global_ranks[((p-1) mod P)*A + a]

 private:
  LayoutParams params_;
  int dp_ = 1;
  std::vector<RankCoord> ranks_;
  std::array<std::vector<std::vector<int>>, kGroupKindCount> groups_;
  // per kind, per rank: index into groups_[kind]
  std::array<std::vector<int>, kGroupKindCount> group_index_;
};

}  // namespace hcpsim
