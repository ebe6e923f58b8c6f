// shared_layout: the cached layout equals a freshly built one, is shared while the layout fields
// agree, and is rebuilt as soon as one of them differs.
#include <gtest/gtest.h>

#include <thread>

#include "engine/layout/layout_cache.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {
namespace {

Scenario job(int nodes, int tp, int cp, int pp) {
  Scenario s;
  s.cluster.nodes = nodes;
  s.cluster.gpus_per_node = 8;
  s.model.tensor_model_parallel_size = tp;
  s.model.context_parallel_size = cp;
  s.model.pipeline_model_parallel_size = pp;
  return s;
}

void expect_same_groups(const RankLayout& a, const RankLayout& b) {
  ASSERT_EQ(a.world_size(), b.world_size());
  for (GroupKind k : {GroupKind::TP, GroupKind::CP, GroupKind::PP, GroupKind::DP, GroupKind::DP_CP})
    EXPECT_EQ(a.groups(k), b.groups(k)) << to_string(k);
}

TEST(LayoutCache, SharesOneLayoutWhileTheLayoutFieldsAgree) {
  Scenario s = job(4, 2, 4, 2);
  const auto a = shared_layout(s);
  expect_same_groups(*a, RankLayout::from_scenario(s));
  // Fields the layout does not read (micro-batch, interleaving) share it.
  s.train.micro_batch_size = 2;
  s.model.virtual_pipeline_model_parallel_size = 2;
  EXPECT_EQ(shared_layout(s).get(), a.get());
  // Each field it reads gives another layout, equal to a fresh build.
  Scenario other = s;
  other.dist.order = "tp-cp-ep-pp-dp";
  const auto b = shared_layout(other);
  EXPECT_NE(b.get(), a.get());
  expect_same_groups(*b, RankLayout::from_scenario(other));
  EXPECT_NE(b->groups(GroupKind::PP), a->groups(GroupKind::PP));
  other = s;
  other.model.context_parallel_size = 4;
  other.model.hierarchical_context_parallel_sizes = {2, 2};
  const auto c = shared_layout(other);
  EXPECT_NE(c.get(), a.get());
  expect_same_groups(*c, RankLayout::from_scenario(other));
  EXPECT_NE(shared_layout(job(8, 2, 4, 2)).get(), a.get());
  for (const Scenario& x : {job(4, 4, 4, 2), job(4, 2, 2, 4), job(4, 2, 4, 1)}) {
    const auto y = shared_layout(x);
    EXPECT_NE(y.get(), a.get());
    expect_same_groups(*y, RankLayout::from_scenario(x));
  }
  other = s;
  other.cluster.gpus_per_node = 4;
  other.cluster.nodes = 8;
  EXPECT_NE(shared_layout(other).get(), a.get());
  EXPECT_EQ(shared_layout(other)->gpus_per_node(), 4);
  // Many other layouts later, the first is built again (the cache keeps the most recent ones);
  // the pointer held here stays valid.
  const int others = 8 + 2 * static_cast<int>(std::thread::hardware_concurrency());   // more than it keeps
  for (int n = 1; n <= others; ++n) shared_layout(job(n, 1, 1, 1));
  const auto again = shared_layout(s);
  EXPECT_NE(again.get(), a.get());
  expect_same_groups(*again, *a);
  // Impossible sizes throw as the build does.
  EXPECT_THROW(shared_layout(job(1, 3, 1, 1)), std::invalid_argument);
}

}  // namespace
}  // namespace hcpsim
