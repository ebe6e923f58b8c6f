// Layout view geometry and group helpers, checked against hand-derived layouts (docs/schedules.md "Rank layout").
#include <gtest/gtest.h>

#include <set>

#include "gui/models/layout_geometry.h"
#include "gui/models/rank_table_model.h"

using namespace hcpsim;
using namespace hcpsim::gui;

namespace {

struct GeometryCase {
  int nodes, gpn;
  int expect_gpu_cols;   // ceil(sqrt(2*gpn)) capped at gpn, worked out by hand
};

class GeometryTest : public ::testing::TestWithParam<GeometryCase> {};

TEST_P(GeometryTest, EveryCellHitsItsOwnRankAndLiesInItsNode) {
  const auto c = GetParam();
  const auto g = LayoutGeometry::build(c.nodes, c.gpn);
  EXPECT_EQ(g.gpu_columns(), c.expect_gpu_cols);
  const QRectF all = g.bounds();
  for (int r = 0; r < c.nodes * c.gpn; ++r) {
    const QRectF cell = g.gpu_rect(r);
    ASSERT_EQ(g.rank_at(cell.center()), r) << "rank " << r;
    ASSERT_EQ(g.rank_at(cell.topLeft() + QPointF(0.5, 0.5)), r);
    ASSERT_TRUE(g.node_rect(r / c.gpn).contains(cell)) << "rank " << r;
    ASSERT_TRUE(all.contains(cell));
    // The gap right of a cell belongs to no GPU.
    ASSERT_EQ(g.rank_at(QPointF(cell.right() + LayoutGeometry::kGpuGap / 2, cell.center().y())), -1);
  }
  // Node frames never overlap.
  for (int a = 0; a + 1 < c.nodes; ++a) EXPECT_FALSE(g.node_rect(a).intersects(g.node_rect(a + 1)));
  EXPECT_EQ(g.rank_at(QPointF(-5, -5)), -1);
  EXPECT_EQ(g.rank_at(all.bottomRight() + QPointF(10, 10)), -1);
  // The label strip of node 0 is inside the node but on no GPU.
  EXPECT_EQ(g.node_at(QPointF(3, 3)), 0);
  EXPECT_EQ(g.rank_at(QPointF(3, 3)), -1);
}

INSTANTIATE_TEST_SUITE_P(Clusters, GeometryTest,
                         ::testing::Values(GeometryCase{1, 8, 4}, GeometryCase{4, 8, 4}, GeometryCase{3, 4, 3},
                                           GeometryCase{2, 72, 12}, GeometryCase{7, 1, 1},
                                           GeometryCase{512, 8, 4}));

TEST(LayoutGeometry, RejectsEmptyClusters) {
  EXPECT_THROW(LayoutGeometry::build(0, 8), std::invalid_argument);
  EXPECT_THROW(LayoutGeometry::build(2, 0), std::invalid_argument);
}

RankLayout flat(int world, int tp, int cp, std::vector<int> hcp = {}) {
  LayoutParams p;
  p.world_size = world;
  p.gpus_per_node = 8;
  p.tp = tp;
  p.cp = cp;
  p.hcp_sizes = std::move(hcp);
  return RankLayout::build(p);
}

TEST(RingEdges, FlatRingFollowsCpIndex) {
  // tp=1 cp=4 on 8 GPUs: CP groups [0..3] and [4..7]; next of c is c+1 mod 4 in the same group.
  const auto L = flat(8, 1, 4);
  const auto e = ring_edges(L);
  ASSERT_EQ(e.size(), 8u);
  const std::set<std::pair<int, int>> expect = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6}, {6, 7}, {7, 4}};
  const std::set<std::pair<int, int>> got(e.begin(), e.end());
  EXPECT_EQ(got, expect);
}

TEST(RingEdges, HierarchicalRingsAreStrided) {
  // docs/schedules.md "Rank layout": tp=1 cp=4 [2,2]: rings [0,2] and [1,3].
  const auto L = flat(4, 1, 4, {2, 2});
  const auto e = ring_edges(L);
  const std::set<std::pair<int, int>> expect = {{0, 2}, {2, 0}, {1, 3}, {3, 1}};
  const std::set<std::pair<int, int>> got(e.begin(), e.end());
  EXPECT_EQ(got, expect);
  EXPECT_EQ(group_kind_for(ColorBy::Ring, L), GroupKind::HCP_P2P);
  EXPECT_EQ(group_kind_for(ColorBy::A2A, L), GroupKind::HCP_A2A);
}

TEST(RingEdges, NoRingWithoutCp) { EXPECT_TRUE(ring_edges(flat(8, 8, 1)).empty()); }

TEST(GroupsOfRank, SharesTpAndCpNeighbours) {
  // tp=2 cp=2 on 8 GPUs (dp=2): rank 0 is with 1 (tp), 2 (cp), 4 (dp) and 0..3 (tp_cp).
  const auto L = flat(8, 2, 2);
  EXPECT_EQ(ranks_sharing_a_group(L, 0), (std::vector<int>{0, 1, 2, 3, 4, 6}));
}

TEST(ColorBy, ParsesEveryName) {
  for (int i = 0; i < kColorByCount; ++i) {
    ColorBy c;
    ASSERT_TRUE(parse_color_by(QString::fromLatin1(to_string(static_cast<ColorBy>(i))), c));
    EXPECT_EQ(static_cast<int>(c), i);
  }
  ColorBy c;
  EXPECT_FALSE(parse_color_by("nodes", c));
}

TEST(RankTableModel, RowsAreRanksAndColumnsCoordinates) {
  RankTableModel m;
  EXPECT_EQ(m.rowCount(), 0);
  auto L = std::make_shared<const RankLayout>(flat(16, 2, 4, {2, 2}));
  m.set_layout(L);
  ASSERT_EQ(m.rowCount(), 16);
  // rank 13 = t + 2*(c + 4*d): t=1, c=2, d=1; a2a = c mod 2 = 0, ring = c div 2 = 1; node 1 gpu 5.
  auto v = [&](int col) { return m.data(m.index(13, col)).toInt(); };
  EXPECT_EQ(v(RankTableModel::Tp), 1);
  EXPECT_EQ(v(RankTableModel::Cp), 2);
  EXPECT_EQ(v(RankTableModel::Dp), 1);
  EXPECT_EQ(v(RankTableModel::Node), 1);
  EXPECT_EQ(v(RankTableModel::Gpu), 5);
  EXPECT_EQ(v(RankTableModel::A2a), 0);
  EXPECT_EQ(v(RankTableModel::Ring), 1);
  // CP group of 13 is [9 11 13 15]; ring [A=2]: positions p=i div 2, next of i=2 is i=(1+1)%2*2+0=0 -> 9.
  EXPECT_EQ(v(RankTableModel::RingNext), 9);
  EXPECT_TRUE(m.data(m.index(13, 0), Qt::ToolTipRole).toString().contains("CONTEXT_PARALLEL_GROUP"));
}

}  // namespace
