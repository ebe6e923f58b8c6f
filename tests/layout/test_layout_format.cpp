// The layout writers: JSON contract keys and text content.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/layout/layout_format.h"

namespace hcpsim {
namespace {

RankLayout example1() {
  LayoutParams p;
  p.world_size = 16;
  p.gpus_per_node = 8;
  p.tp = 2;
  p.cp = 8;
  p.hcp_sizes = {2, 4};
  return RankLayout::build(p);
}

TEST(LayoutFormat, JsonFollowsTheContract) {
  const auto j = nlohmann::json::parse(layout_to_json(example1()));
  EXPECT_EQ(j["world_size"], 16);
  EXPECT_EQ(j["order"], "tp-cp-ep-dp-pp");
  for (const char* k : {"tp", "cp", "dp", "pp", "dp_cp", "tp_cp", "hcp_a2a", "hcp_p2p"}) EXPECT_TRUE(j["groups"].contains(k)) << k;
  EXPECT_EQ(j["groups"]["hcp_p2p"][0], (std::vector<int>{0, 4, 8, 12}));
  ASSERT_EQ(j["ranks"].size(), 16u);
  const auto& r4 = j["ranks"][4];
  EXPECT_EQ(r4["rank"], 4);
  EXPECT_EQ(r4["node"], 0);
  EXPECT_EQ(r4["gpu"], 4);
  EXPECT_EQ(r4["cp"], 2);
  EXPECT_EQ(r4["a2a"], 0);
  EXPECT_EQ(r4["ring"], 1);
}

TEST(LayoutFormat, JsonOmitsHcpWithoutHierarchicalSizes) {
  LayoutParams p;
  p.world_size = 8;
  p.cp = 8;
  const auto j = nlohmann::json::parse(layout_to_json(RankLayout::build(p)));
  EXPECT_FALSE(j["groups"].contains("hcp_a2a"));
  EXPECT_FALSE(j["groups"].contains("hcp_p2p"));
}

TEST(LayoutFormat, TextNamesGroupsAndCountsHops) {
  const std::string t = layout_to_text(example1());
  EXPECT_NE(t.find("HIERARCHICAL_CONTEXT_PARALLEL_GROUP_L0"), std::string::npos);
  EXPECT_NE(t.find("TENSOR_MODEL_PARALLEL_GROUP"), std::string::npos);
  EXPECT_NE(t.find("r0(n0) -> r4(n0) -> r8(n1) -> r12(n1) -> r0   [2 intra, 2 inter hops]"), std::string::npos) << t;
}

TEST(LayoutFormat, LargeWorldTextIsSummarised) {
  LayoutParams p;
  p.world_size = 4096;
  p.tp = 8;
  p.cp = 16;
  const std::string t = layout_to_text(RankLayout::build(p));
  EXPECT_LT(t.size(), 20000u);
  EXPECT_NE(t.find("more nodes"), std::string::npos);
}

}  // namespace
}  // namespace hcpsim
