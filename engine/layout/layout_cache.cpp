#include "engine/layout/layout_cache.h"

#include <algorithm>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "engine/scenario/scenario.h"

namespace hcpsim {
namespace {

bool same(const LayoutParams& a, const LayoutParams& b) {
  auto key = [](const LayoutParams& p) {
    return std::tie(p.world_size, p.gpus_per_node, p.tp, p.cp, p.pp, p.order, p.hcp_sizes, p.hp_ulysses,
                    p.hp_mesh_dim_names);
  };
  return key(a) == key(b);
}

// Most recently used last. The planner composes the candidates of one parallel layout mostly
// together; a few layouts per thread keep them cached while the threads interleave.
std::size_t cached_layouts() { return std::max<std::size_t>(8, 2 * std::thread::hardware_concurrency()); }

}  // namespace

LayoutParams layout_params_of(const Scenario& s) {
  LayoutParams p;
  p.world_size = s.world_size();
  p.gpus_per_node = s.cluster.gpus_per_node;
  p.tp = s.tp();
  p.cp = s.cp();
  p.pp = s.pp();
  p.order = s.dist.order;
  p.hcp_sizes = s.model.hierarchical_context_parallel_sizes;
  if (s.hyperparallel_cp()) {   // HyperParallel: its own sub-groups, no Megatron hierarchical groups
    p.hcp_sizes.clear();
    p.hp_ulysses = s.hyperparallel.ulysses(s.cp());
    p.hp_mesh_dim_names = s.hyperparallel.mesh_dim_names;
  }
  return p;
}

std::shared_ptr<const RankLayout> shared_layout(const Scenario& s) {
  static std::mutex mutex;
  static std::vector<std::pair<LayoutParams, std::shared_ptr<const RankLayout>>> cache;
  const LayoutParams p = layout_params_of(s);
  {
    const std::lock_guard<std::mutex> lock(mutex);
    const auto it = std::find_if(cache.begin(), cache.end(), [&](const auto& e) { return same(e.first, p); });
    if (it != cache.end()) {
      std::rotate(it, it + 1, cache.end());   // now the most recently used
      return cache.back().second;
    }
  }
  // Built outside the lock: another thread may build the same layout meanwhile (both are equal).
  auto built = std::make_shared<const RankLayout>(RankLayout::build(p));
  const std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() >= cached_layouts()) cache.erase(cache.begin());
  cache.emplace_back(p, built);
  return built;
}

}  // namespace hcpsim
