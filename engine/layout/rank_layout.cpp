#include "engine/layout/rank_layout.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "engine/scenario/scenario.h"
#include "engine/core/text_split.h"
#include "engine/layout/layout_cache.h"

namespace hcpsim {

const char* to_string(GroupKind k) {
  static const char* names[] = {"tp", "cp", "dp", "pp", "dp_cp", "tp_cp", "hcp_a2a", "hcp_p2p", "hp_ulysses", "hp_colossal"};
  return names[static_cast<int>(k)];
}

const char* megatron_group_name(GroupKind k) {
  static const char* names[] = {"TENSOR_MODEL_PARALLEL_GROUP",
                                "CONTEXT_PARALLEL_GROUP",
                                "DATA_PARALLEL_GROUP",
                                "PIPELINE_MODEL_PARALLEL_GROUP",
                                "DATA_PARALLEL_GROUP_WITH_CP",
                                "TENSOR_AND_CONTEXT_PARALLEL_GROUP",
                                "HIERARCHICAL_CONTEXT_PARALLEL_GROUP_L0",
                                "HIERARCHICAL_CONTEXT_PARALLEL_GROUP_L1",
                                "HYPERPARALLEL_ULYSSES_SUBGROUP",     // not Megatron: HyperParallel's ds mesh dim
                                "HYPERPARALLEL_COLOSSAL_SUBGROUP"};  // HyperParallel's co mesh dim
  return names[static_cast<int>(k)];
}

namespace {

std::vector<std::string> split_order(const std::string& order) { return split_at(order, '-'); }

struct Axes {
  std::vector<std::string> names;
  std::vector<int> sizes;
};

// The order string's axes with their sizes; size-1 axes missing from the order are appended,
// a missing axis of size > 1 is Megatron's RuntimeError.
Axes make_axes(const std::string& order, const std::map<std::string, int>& size_of) {
  Axes a;
  for (const auto& name : split_order(order)) {
    auto it = size_of.find(name);
    if (it == size_of.end())
      throw std::invalid_argument("unknown axis '" + name + "' in order '" + order +
                                  "' (valid axes: tp, cp, ep, dp, pp)");
    if (std::find(a.names.begin(), a.names.end(), name) != a.names.end())
      throw std::invalid_argument("axis '" + name + "' appears twice in order '" + order + "'");
    a.names.push_back(name);
    a.sizes.push_back(it->second);
  }
  for (const auto& [name, n] : size_of) {
    if (std::find(a.names.begin(), a.names.end(), name) != a.names.end()) continue;
    if (n != 1)
      throw std::invalid_argument("The size of (" + name + ") is (" + std::to_string(n) +
                                  "), but you haven'tspecified the order (" + order + ").");
    a.names.push_back(name);
    a.sizes.push_back(1);
  }
  return a;
}

std::vector<std::vector<int>> masked_groups(const Axes& axes, const std::vector<std::string>& token) {
  std::vector<int> masked_sizes, masked_strides, unmasked_sizes, unmasked_strides;
  int stride = 1;
  for (std::size_t i = 0; i < axes.names.size(); ++i) {
    const bool m = std::find(token.begin(), token.end(), axes.names[i]) != token.end();
    (m ? masked_sizes : unmasked_sizes).push_back(axes.sizes[i]);
    (m ? masked_strides : unmasked_strides).push_back(stride);
    stride *= axes.sizes[i];
  }
  const int group_size = std::accumulate(masked_sizes.begin(), masked_sizes.end(), 1, std::multiplies<>());
  const int num_groups = std::accumulate(unmasked_sizes.begin(), unmasked_sizes.end(), 1, std::multiplies<>());
  std::vector<std::vector<int>> groups(static_cast<std::size_t>(num_groups));
  for (int g = 0; g < num_groups; ++g) {
    int base = 0, rem = g;
    for (std::size_t j = 0; j < unmasked_sizes.size(); ++j) {   // leftmost varies fastest
      base += (rem % unmasked_sizes[j]) * unmasked_strides[j];
      rem /= unmasked_sizes[j];
    }
    auto& grp = groups[static_cast<std::size_t>(g)];
    grp.reserve(static_cast<std::size_t>(group_size));
    for (int k = 0; k < group_size; ++k) {
      int off = 0, r = k;
      for (std::size_t j = 0; j < masked_sizes.size(); ++j) {
        off += (r % masked_sizes[j]) * masked_strides[j];
        r /= masked_sizes[j];
      }
      grp.push_back(base + off);
    }
  }
  return groups;
}

}  // namespace

int RankLayout::nodes() const {
  return (params_.world_size + params_.gpus_per_node - 1) / params_.gpus_per_node;
}

int RankLayout::a2a_size() const { return hierarchical() ? params_.hcp_sizes[0] : 1; }

int RankLayout::ring_size() const { return hierarchical() ? params_.hcp_sizes[1] : params_.cp; }

RankLayout RankLayout::build(const LayoutParams& p) {
  if (p.world_size <= 0 || p.gpus_per_node <= 0 || p.tp <= 0 || p.cp <= 0 || p.pp <= 0)
    throw std::invalid_argument("world size, gpus per node and parallel sizes must be positive");
  const long long model_size = static_cast<long long>(p.tp) * p.cp * p.pp;
  if (p.world_size % model_size != 0)
    throw std::invalid_argument("world_size (" + std::to_string(p.world_size) + ") is not divisible by " +
                                std::to_string(model_size));
  if (!p.hcp_sizes.empty()) {
    if (p.hcp_sizes.size() != 2)
      throw std::invalid_argument("hierarchical_context_parallel_sizes must have two levels [a2a, p2p]");
    if (p.hcp_sizes[0] <= 0 || p.hcp_sizes[1] <= 0 || p.hcp_sizes[0] * p.hcp_sizes[1] != p.cp)
      throw std::invalid_argument("product of hierarchical_context_parallel_sizes must equal context_parallel_size");
  }
  if (p.hp_ulysses < 0 || (p.hp_ulysses > 0 && p.cp % p.hp_ulysses != 0))
    throw std::invalid_argument("cp_size (" + std::to_string(p.cp) + ") must be divisible by ulysses_degree (" +
                                std::to_string(p.hp_ulysses) + ").");
  RankLayout L;
  L.params_ = p;
  L.dp_ = static_cast<int>(p.world_size / model_size);
  const Axes axes = make_axes(p.order, {{"tp", p.tp}, {"cp", p.cp}, {"ep", 1}, {"dp", L.dp_}, {"pp", p.pp}});

  auto set = [&](GroupKind k, std::vector<std::vector<int>> g) {
    L.groups_[static_cast<std::size_t>(k)] = std::move(g);
  };
  // Megatron creation order: dp-cp, dp, cp (+hcp), tp, pp, tp-cp.
  set(GroupKind::DP_CP, masked_groups(axes, {"dp", "cp"}));
  set(GroupKind::DP, masked_groups(axes, {"dp"}));
  set(GroupKind::CP, masked_groups(axes, {"cp"}));
  set(GroupKind::TP, masked_groups(axes, {"tp"}));
  set(GroupKind::PP, masked_groups(axes, {"pp"}));
  set(GroupKind::TP_CP, masked_groups(axes, {"tp", "cp"}));
  // [A, P] split of every CP group: level 0 contiguous blocks of A, level 1 strided sets of P.
  auto split = [&](int A, int P, GroupKind k0, GroupKind k1) {
    std::vector<std::vector<int>> l0, l1;
    for (const auto& R : L.groups(GroupKind::CP)) {
      for (int pi = 0; pi < P; ++pi) {
        std::vector<int> g;
        for (int a = 0; a < A; ++a) g.push_back(R[static_cast<std::size_t>(pi * A + a)]);
        l0.push_back(std::move(g));
      }
      for (int a = 0; a < A; ++a) {
        std::vector<int> g;
        for (int pi = 0; pi < P; ++pi) g.push_back(R[static_cast<std::size_t>(pi * A + a)]);
        l1.push_back(std::move(g));
      }
    }
    set(k0, std::move(l0));
    set(k1, std::move(l1));
  };
  if (!p.hcp_sizes.empty()) split(p.hcp_sizes[0], p.hcp_sizes[1], GroupKind::HCP_A2A, GroupKind::HCP_P2P);
  // HyperParallel's (co, ds) mesh tiles each CP rank list into co rows of ds adjacent ranks.
  if (p.hp_ulysses > 0) split(p.hp_ulysses, p.cp / p.hp_ulysses, GroupKind::HP_ULYSSES, GroupKind::HP_COLOSSAL);

  for (int k = 0; k < kGroupKindCount; ++k) {
    auto& idx = L.group_index_[static_cast<std::size_t>(k)];
    idx.assign(static_cast<std::size_t>(p.world_size), -1);
    const auto& gs = L.groups_[static_cast<std::size_t>(k)];
    for (std::size_t g = 0; g < gs.size(); ++g)
      for (int r : gs[g]) idx[static_cast<std::size_t>(r)] = static_cast<int>(g);
  }

  // Coordinates: position of the rank along each axis.
  L.ranks_.resize(static_cast<std::size_t>(p.world_size));
  for (int r = 0; r < p.world_size; ++r) {
    RankCoord c;
    c.rank = r;
    c.node = r / p.gpus_per_node;
    c.gpu = r % p.gpus_per_node;
    int rem = r;
    for (std::size_t i = 0; i < axes.names.size(); ++i) {
      const int v = rem % axes.sizes[i];
      rem /= axes.sizes[i];
      const auto& n = axes.names[i];
      if (n == "tp") c.tp = v;
      else if (n == "cp") c.cp = v;
      else if (n == "dp") c.dp = v;
      else if (n == "pp") c.pp = v;
    }
    const int A = L.a2a_size();
    c.a2a = L.hierarchical() ? c.cp % A : 0;
    c.ring = L.hierarchical() ? c.cp / A : c.cp;
    L.ranks_[static_cast<std::size_t>(r)] = c;
  }
  return L;
}

RankLayout RankLayout::from_scenario(const Scenario& s) { return build(layout_params_of(s)); }

const std::vector<int>& RankLayout::group_of(GroupKind k, int rank) const {
  const int g = group_index_of(k, rank);
  if (g < 0) throw std::out_of_range(std::string("rank has no group of kind ") + to_string(k));
  return groups_[static_cast<std::size_t>(k)][static_cast<std::size_t>(g)];
}

int RankLayout::group_index_of(GroupKind k, int rank) const {
  return group_index_[static_cast<std::size_t>(k)].at(static_cast<std::size_t>(rank));
}

int RankLayout::ring_next(int rank) const {
  const auto& c = coord(rank);
  const auto& R = group_of(GroupKind::CP, rank);
  const int A = a2a_size(), P = ring_size();
  return R[static_cast<std::size_t>(((c.ring + 1) % P) * A + c.a2a)];
}

int RankLayout::ring_prev(int rank) const {
  const auto& c = coord(rank);
  const auto& R = group_of(GroupKind::CP, rank);
  const int A = a2a_size(), P = ring_size();
  return R[static_cast<std::size_t>(((c.ring - 1 + P) % P) * A + c.a2a)];
}

}  // namespace hcpsim
