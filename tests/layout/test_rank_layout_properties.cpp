// Property tests over many random configurations. Expected values are derived here from the rank
// formula of docs/schedules.md "Rank layout" (global = t + tp*(c + cp*(d + dp*q)) for tp-cp-ep-dp-pp, and with d/q swapped
// for tp-cp-ep-pp-dp), independently of RankLayout's masked-group enumeration.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "engine/layout/rank_layout.h"

namespace hcpsim {
namespace {

struct Coord {
  int t, c, d, q;
};

int global_rank(const Coord& x, int tp, int cp, int dp, int pp, bool pp_before_dp) {
  return pp_before_dp ? x.t + tp * (x.c + cp * (x.q + pp * x.d)) : x.t + tp * (x.c + cp * (x.d + dp * x.q));
}

std::vector<int> divisors(int n) {
  std::vector<int> v;
  for (int i = 1; i <= n; ++i)
    if (n % i == 0) v.push_back(i);
  return v;
}

class RandomLayouts : public ::testing::TestWithParam<int> {};

TEST_P(RandomLayouts, GroupsMatchTheRankFormula) {
  std::mt19937 rng(static_cast<unsigned>(GetParam()) * 7919u + 17u);
  auto pick = [&](std::vector<int> v) { return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)]; };
  const int tp = pick({1, 2, 4, 8}), cp = pick({1, 2, 3, 4, 6, 8, 16}), dp = pick({1, 2, 3, 4}), pp = pick({1, 2, 4});
  const bool pp_before_dp = rng() % 2 == 1;
  const int W = tp * cp * dp * pp;
  const int gpn = pick({1, 2, 4, 8, 16});
  std::vector<int> hcp;
  if (cp > 1 && rng() % 3 != 0) {
    const int A = pick(divisors(cp));
    hcp = {A, cp / A};
  }
  const LayoutParams p{.world_size = W,
                       .gpus_per_node = gpn,
                       .tp = tp,
                       .cp = cp,
                       .pp = pp,
                       .order = pp_before_dp ? "tp-cp-ep-pp-dp" : "tp-cp-ep-dp-pp",
                       .hcp_sizes = hcp};
  SCOPED_TRACE("tp=" + std::to_string(tp) + " cp=" + std::to_string(cp) + " dp=" + std::to_string(dp) +
               " pp=" + std::to_string(pp) + " order=" + p.order +
               (hcp.empty() ? "" : " hcp=[" + std::to_string(hcp[0]) + "," + std::to_string(hcp[1]) + "]"));
  const RankLayout L = RankLayout::build(p);
  ASSERT_EQ(L.dp(), dp);

  // Coordinates from the formula.
  std::vector<Coord> coord(static_cast<std::size_t>(W));
  for (int q = 0; q < pp; ++q)
    for (int d = 0; d < dp; ++d)
      for (int c = 0; c < cp; ++c)
        for (int t = 0; t < tp; ++t) coord[static_cast<std::size_t>(global_rank({t, c, d, q}, tp, cp, dp, pp, pp_before_dp))] = {t, c, d, q};
  for (int r = 0; r < W; ++r) {
    const auto& x = coord[static_cast<std::size_t>(r)];
    const auto& rc = L.coord(r);
    ASSERT_EQ(rc.tp, x.t);
    ASSERT_EQ(rc.cp, x.c);
    ASSERT_EQ(rc.dp, x.d);
    ASSERT_EQ(rc.pp, x.q);
    ASSERT_EQ(rc.node, r / gpn);
    ASSERT_EQ(rc.gpu, r % gpn);
  }

  // Each group kind: the group of r = all ranks that agree with r outside the kind's axes, ascending.
  auto same_except = [&](int r, bool vt, bool vc, bool vd, bool vq) {
    std::vector<int> g;
    const auto& a = coord[static_cast<std::size_t>(r)];
    for (int s = 0; s < W; ++s) {
      const auto& b = coord[static_cast<std::size_t>(s)];
      if ((vt || a.t == b.t) && (vc || a.c == b.c) && (vd || a.d == b.d) && (vq || a.q == b.q)) g.push_back(s);
    }
    return g;
  };
  struct KindAxes {
    GroupKind k;
    bool t, c, d, q;
  };
  const KindAxes kinds[] = {{GroupKind::TP, true, false, false, false}, {GroupKind::CP, false, true, false, false},
                            {GroupKind::DP, false, false, true, false}, {GroupKind::PP, false, false, false, true},
                            {GroupKind::DP_CP, false, true, true, false}, {GroupKind::TP_CP, true, true, false, false}};
  for (const auto& k : kinds) {
    std::vector<int> seen(static_cast<std::size_t>(W), 0);
    for (const auto& g : L.groups(k.k))
      for (int r : g) ++seen[static_cast<std::size_t>(r)];
    for (int r = 0; r < W; ++r) {
      ASSERT_EQ(seen[static_cast<std::size_t>(r)], 1) << to_string(k.k) << " rank " << r;
      ASSERT_EQ(L.group_of(k.k, r), same_except(r, k.t, k.c, k.d, k.q)) << to_string(k.k) << " rank " << r;
    }
  }
  // A TP group and a CP group that share a (d, q) share exactly one rank.
  for (const auto& tg : L.groups(GroupKind::TP))
    for (const auto& cg : L.groups(GroupKind::CP)) {
      std::vector<int> both;
      std::set_intersection(tg.begin(), tg.end(), cg.begin(), cg.end(), std::back_inserter(both));
      const auto& a = coord[static_cast<std::size_t>(tg[0])];
      const auto& b = coord[static_cast<std::size_t>(cg[0])];
      ASSERT_EQ(both.size(), (a.d == b.d && a.q == b.q) ? 1u : 0u);
    }

  // Hierarchical levels: sizes multiply to cp; each level-0 group is a contiguous block of its CP
  // list, each ring a strided set; every rank in exactly one of each.
  const int A = hcp.empty() ? 1 : hcp[0], P = hcp.empty() ? cp : hcp[1];
  ASSERT_EQ(A * P, cp);
  if (!hcp.empty()) {
    for (GroupKind k : {GroupKind::HCP_A2A, GroupKind::HCP_P2P}) {
      std::vector<int> seen(static_cast<std::size_t>(W), 0);
      for (const auto& g : L.groups(k)) {
        ASSERT_EQ(static_cast<int>(g.size()), k == GroupKind::HCP_A2A ? A : P);
        for (int r : g) ++seen[static_cast<std::size_t>(r)];
      }
      for (int r = 0; r < W; ++r) ASSERT_EQ(seen[static_cast<std::size_t>(r)], 1);
    }
    for (int r = 0; r < W; ++r) {
      const auto& R = L.group_of(GroupKind::CP, r);
      const int i = coord[static_cast<std::size_t>(r)].c;   // CP index = position in the CP list
      ASSERT_EQ(R[static_cast<std::size_t>(i)], r);
      std::vector<int> block, ring;
      for (int a = 0; a < A; ++a) block.push_back(R[static_cast<std::size_t>((i / A) * A + a)]);
      for (int q = 0; q < P; ++q) ring.push_back(R[static_cast<std::size_t>(q * A + i % A)]);
      ASSERT_EQ(L.group_of(GroupKind::HCP_A2A, r), block);
      ASSERT_EQ(L.group_of(GroupKind::HCP_P2P, r), ring);
      ASSERT_EQ(L.coord(r).a2a, i % A);
      ASSERT_EQ(L.coord(r).ring, i / A);
    }
  }
  // Ring neighbours: the next / previous member of the rank's ring list, cyclically (TE's
  // send_dst = R[((p+1) mod P)*A + a] walks exactly that list).
  for (int r = 0; r < W; ++r) {
    const auto& ring = hcp.empty() ? L.group_of(GroupKind::CP, r) : L.group_of(GroupKind::HCP_P2P, r);
    const auto pos = static_cast<std::size_t>(std::find(ring.begin(), ring.end(), r) - ring.begin());
    ASSERT_EQ(L.ring_next(r), ring[(pos + 1) % ring.size()]);
    ASSERT_EQ(L.ring_prev(r), ring[(pos + ring.size() - 1) % ring.size()]);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomLayouts, ::testing::Range(0, 60));

TEST(LayoutScale, World4096BuildsAndIsConsistent) {
  LayoutParams p;
  p.world_size = 4096;
  p.gpus_per_node = 8;
  p.tp = 8;
  p.cp = 32;
  p.pp = 4;
  p.hcp_sizes = {1, 32};
  const auto L = RankLayout::build(p);
  EXPECT_EQ(L.dp(), 4);
  EXPECT_EQ(L.groups(GroupKind::CP).size(), 4096u / 32u);
  EXPECT_EQ(L.ring_next(0), 8);   // CP list of rank 0 is strided by tp = 8
}

}  // namespace
}  // namespace hcpsim
