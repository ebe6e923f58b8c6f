// Megatron's worked layouts (docs/schedules.md "Rank layout" and four more), group by group.
#include <gtest/gtest.h>

#include "engine/layout/rank_layout.h"

namespace hcpsim {
namespace {

using Groups = std::vector<std::vector<int>>;

RankLayout make(int world, int gpn, int tp, int cp, int pp, std::vector<int> hcp,
                std::string order = "tp-cp-ep-dp-pp") {
  return RankLayout::build({.world_size = world,
                            .gpus_per_node = gpn,
                            .tp = tp,
                            .cp = cp,
                            .pp = pp,
                            .order = std::move(order),
                            .hcp_sizes = std::move(hcp)});
}

TEST(LayoutExamples, Example1_W16_tp2_cp8_hcp2x4) {
  const auto L = make(16, 8, 2, 8, 1, {2, 4});
  EXPECT_EQ(L.dp(), 1);
  EXPECT_EQ(L.groups(GroupKind::TP), (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}}));
  EXPECT_EQ(L.groups(GroupKind::CP), (Groups{{0, 2, 4, 6, 8, 10, 12, 14}, {1, 3, 5, 7, 9, 11, 13, 15}}));
  EXPECT_EQ(L.groups(GroupKind::DP).size(), 16u);
  for (int r = 0; r < 16; ++r) EXPECT_EQ(L.group_of(GroupKind::DP, r), std::vector<int>{r});
  EXPECT_EQ(L.groups(GroupKind::DP_CP), L.groups(GroupKind::CP));
  EXPECT_EQ(L.groups(GroupKind::TP_CP), (Groups{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}}));
  EXPECT_EQ(L.groups(GroupKind::HCP_A2A),
            (Groups{{0, 2}, {4, 6}, {8, 10}, {12, 14}, {1, 3}, {5, 7}, {9, 11}, {13, 15}}));
  EXPECT_EQ(L.groups(GroupKind::HCP_P2P), (Groups{{0, 4, 8, 12}, {2, 6, 10, 14}, {1, 5, 9, 13}, {3, 7, 11, 15}}));
  // Rank 4: CP index 2, a = 0, p = 1; sends to global 8, receives from global 0.
  EXPECT_EQ(L.coord(4).cp, 2);
  EXPECT_EQ(L.coord(4).a2a, 0);
  EXPECT_EQ(L.coord(4).ring, 1);
  EXPECT_EQ(L.ring_next(4), 8);
  EXPECT_EQ(L.ring_prev(4), 0);
  // Every a2a pair is inside one node; ring 0->4->8->12 has 2 intra and 2 inter hops.
  for (const auto& g : L.groups(GroupKind::HCP_A2A)) EXPECT_EQ(L.coord(g[0]).node, L.coord(g[1]).node);
  int intra = 0;
  const std::vector<int> ring{0, 4, 8, 12};
  for (int i = 0; i < 4; ++i) intra += L.coord(ring[i]).node == L.coord(ring[(i + 1) % 4]).node;
  EXPECT_EQ(intra, 2);
}

TEST(LayoutExamples, Example2_W4_cp4_hcp2x2_and_dp_pp_variants) {
  const auto L = make(4, 8, 1, 4, 1, {2, 2});
  EXPECT_EQ(L.groups(GroupKind::CP), (Groups{{0, 1, 2, 3}}));
  EXPECT_EQ(L.groups(GroupKind::DP_CP), (Groups{{0, 1, 2, 3}}));
  EXPECT_EQ(L.groups(GroupKind::TP_CP), (Groups{{0, 1, 2, 3}}));
  EXPECT_EQ(L.groups(GroupKind::HCP_A2A), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(L.groups(GroupKind::HCP_P2P), (Groups{{0, 2}, {1, 3}}));

  const auto D = make(8, 8, 1, 4, 1, {2, 2});   // dp = 2: a second copy at +4
  EXPECT_EQ(D.groups(GroupKind::CP), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(D.groups(GroupKind::HCP_A2A), (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(D.groups(GroupKind::HCP_P2P), (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
  EXPECT_EQ(D.groups(GroupKind::DP), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));

  const auto P = make(8, 8, 1, 4, 2, {2, 2});   // pp = 2 (Megatron's tp1_pp2_cp4 a2a_p2p test)
  EXPECT_EQ(P.groups(GroupKind::CP), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(P.groups(GroupKind::PP), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
}

TEST(LayoutExamples, Example3_BridgeOptionA_W32_cp16_dp2_hcp8x2) {
  const auto L = make(32, 8, 1, 16, 1, {8, 2});
  EXPECT_EQ(L.dp(), 2);
  Groups cp{{}, {}};
  for (int r = 0; r < 16; ++r) cp[0].push_back(r), cp[1].push_back(16 + r);
  EXPECT_EQ(L.groups(GroupKind::CP), cp);
  const auto& a2a = L.groups(GroupKind::HCP_A2A);
  ASSERT_EQ(a2a.size(), 4u);
  for (int n = 0; n < 4; ++n) {   // the a2a groups are exactly the nodes
    for (int k = 0; k < 8; ++k) EXPECT_EQ(a2a[n][k], 8 * n + k);
  }
  const auto& rings = L.groups(GroupKind::HCP_P2P);
  ASSERT_EQ(rings.size(), 16u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(rings[i], (std::vector<int>{i, i + 8}));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(rings[8 + i], (std::vector<int>{16 + i, 24 + i}));
}

TEST(LayoutExamples, Example4_W16_tp2_cp4_dp2_hcp2x2) {
  const auto L = make(16, 8, 2, 4, 1, {2, 2});
  EXPECT_EQ(L.groups(GroupKind::CP), (Groups{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}}));
  const auto& a2a = L.groups(GroupKind::HCP_A2A);
  const auto& p2p = L.groups(GroupKind::HCP_P2P);
  EXPECT_EQ(a2a[0], (std::vector<int>{0, 2}));
  EXPECT_EQ(a2a[1], (std::vector<int>{4, 6}));
  EXPECT_EQ(p2p[0], (std::vector<int>{0, 4}));
  EXPECT_EQ(p2p[1], (std::vector<int>{2, 6}));
}

TEST(LayoutErrors, MegatronMessages) {
  EXPECT_THROW(make(12, 8, 2, 4, 1, {}), std::invalid_argument);   // 12 % 8 != 0
  try {
    make(12, 8, 2, 4, 1, {});
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "world_size (12) is not divisible by 8");
  }
  EXPECT_THROW(make(16, 8, 1, 8, 1, {2, 2}), std::invalid_argument);   // product 4 != 8
  EXPECT_THROW(make(16, 8, 1, 8, 1, {}, "tp-dp-pp"), std::invalid_argument);   // cp > 1 missing from order
}

}  // namespace
}  // namespace hcpsim
