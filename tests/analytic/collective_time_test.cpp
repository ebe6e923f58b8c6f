#include "engine/analytic/collective_time.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/analytic/run_helpers.h"
#include "tests/cost/test_scenario.h"

namespace hcpsim {
namespace {

double eff(double m, double plateau, double half) { return plateau * m / (m + half); }

CommOp collective(TaskKind k, std::vector<std::int32_t> ranks, double bytes) {
  CommOp op;
  op.kind = k;
  op.ranks = std::move(ranks);
  op.bytes_per_rank = bytes;
  return op;
}

TEST(Collectives, IntraNodeAllToAllIsPortBound) {
  for (const int n : {2, 4, 8}) {
    const Scenario s = test::dgx_scenario(1, 8);
    const CostModel cm(s);
    const RouteModel rm(s, cm);
    std::vector<std::int32_t> ranks;
    for (int i = 0; i < n; ++i) ranks.push_back(i);
    const double t = 128.0 * 1024 * 1024;
    const double piece = t / n;
    const double expected = 2e-6 + (n - 1) * piece / (450e9 * eff(piece, 0.82, 1024.0 * 1024));
    EXPECT_NEAR(alltoall_seconds(collective(TaskKind::AllToAll, ranks, t), rm), expected, expected * 1e-12) << n;
  }
}

TEST(Collectives, CrossNodeAllToAllIsNicBound) {
  const Scenario s = test::dgx_scenario(2, 4);   // members 0,1 on node 0 and 4,5 on node 1
  const CostModel cm(s);
  const RouteModel rm(s, cm);
  const double t = 64e6, piece = t / 4;
  // Rank 0 sends one piece over NVSwitch (to 1) and two over its NIC (to 4, 5): the NIC dominates.
  const double nic = 5e-6 + 2 * piece / (50e9 * eff(piece, 0.94, 256.0 * 1024));
  EXPECT_NEAR(alltoall_seconds(collective(TaskKind::AllToAll, {0, 1, 4, 5}, t), rm), nic, nic * 1e-12);
}

TEST(Collectives, RingCollectivesFollowNcclSteps) {
  const Scenario s = test::dgx_scenario(2, 4);
  const CostModel cm(s);
  const RouteModel rm(s, cm);
  const std::vector<std::int32_t> ranks{0, 1, 2, 3};
  const double shard = 16e6;
  const double hop = 2e-6 + shard / (450e9 * eff(shard, 0.82, 1024.0 * 1024));
  EXPECT_NEAR(ring_collective_seconds(collective(TaskKind::AllGather, ranks, shard), rm), 3 * hop, 1e-15);
  EXPECT_NEAR(ring_collective_seconds(collective(TaskKind::ReduceScatter, ranks, shard), rm), 3 * hop, 1e-15);
  const double buf = 64e6, chunk = buf / 4;
  const double hop_ar = 2e-6 + chunk / (450e9 * eff(chunk, 0.82, 1024.0 * 1024));
  EXPECT_NEAR(ring_collective_seconds(collective(TaskKind::AllReduce, ranks, buf), rm), 6 * hop_ar, 1e-15);
  // A ring that crosses nodes is limited by its slowest (NIC) hop.
  const double inter = 5e-6 + shard / (50e9 * eff(shard, 0.94, 256.0 * 1024));
  EXPECT_NEAR(ring_collective_seconds(collective(TaskKind::AllGather, {0, 1, 4, 5}, shard), rm), 3 * inter, 1e-15);
  EXPECT_EQ(ring_collective_seconds(collective(TaskKind::AllGather, {3}, shard), rm), 0.0);
}

TEST(Collectives, RailsTermSpreadsTheInterNodeHopOverTheNodesNics) {
  // `nccl_rails` alone (docs/metrics.md 9.7): 2 nodes x 8 GPUs, 4 NICs per node. NCCL's rings leave
  // each node through all 4 NICs, so the all_reduce's inter-node hop runs at 4 x 50 GB/s.
  Scenario s = test::dgx_scenario(2, 8);
  s.cluster.nics_per_node = 4;
  s.cluster.efficiency.terms.nccl_rails = true;
  const CostModel cm(s);
  const RouteModel rm(s, cm);
  std::vector<std::int32_t> ranks;
  for (int i = 0; i < 16; ++i) ranks.push_back(i);
  const double buf = 1024.0 * 1024 * 1024, chunk = buf / 16;
  const double intra = 2e-6 + chunk / (450e9 * eff(chunk, 0.82, 1024.0 * 1024));
  const double inter = 5e-6 + chunk / (4 * 50e9 * eff(chunk, 0.94, 256.0 * 1024));
  const double expected = 30 * std::max(intra, inter);
  EXPECT_NEAR(ring_collective_seconds(collective(TaskKind::AllReduce, ranks, buf), rm), expected, expected * 1e-12);
  // Term off: one NIC per hop, four times the inter-node time.
  s.cluster.efficiency.terms.nccl_rails = false;
  const CostModel cm_off(s);
  const RouteModel rm_off(s, cm_off);
  const double one_nic = 30 * (5e-6 + chunk / (50e9 * eff(chunk, 0.94, 256.0 * 1024)));
  EXPECT_NEAR(ring_collective_seconds(collective(TaskKind::AllReduce, ranks, buf), rm_off), one_nic, one_nic * 1e-12);
  EXPECT_GT(one_nic, 3.5 * expected);
}

TEST(Collectives, RailsTermSpreadsAllToAllPiecesOverAGpusNics) {
  // Two NICs per GPU (16 per node): rank 0's pieces to node 1 leave through NICs 0 and 8, half each.
  Scenario s = test::dgx_scenario(2, 8);
  s.cluster.nics_per_node = 16;
  s.cluster.efficiency.terms.nccl_rails = true;
  const CostModel cm(s);
  const RouteModel rm(s, cm);
  const double t = 64e6, piece = t / 2;
  const double on = 5e-6 + (piece / 2) / (50e9 * eff(piece, 0.94, 256.0 * 1024));
  EXPECT_NEAR(alltoall_seconds(collective(TaskKind::AllToAll, {0, 8}, t), rm), on, on * 1e-12);
  s.cluster.efficiency.terms.nccl_rails = false;
  const CostModel cm_off(s);
  const RouteModel rm_off(s, cm_off);
  const double off = 5e-6 + piece / (50e9 * eff(piece, 0.94, 256.0 * 1024));
  EXPECT_NEAR(alltoall_seconds(collective(TaskKind::AllToAll, {0, 8}, t), rm_off), off, off * 1e-12);
}

TEST(Collectives, MembersEndTogetherAfterTheLastArrives) {
  const Scenario s = test::dgx_scenario(1, 4);
  TaskGraph g;
  CommOp op = collective(TaskKind::AllToAll, {0, 1, 2, 3}, 32e6);
  const auto oi = g.add_comm(op);
  Task c;
  c.kind = TaskKind::Copy;
  c.rank = 2;
  c.bytes = 1e9;
  const TaskId late = g.add_task(c, "perm_q");
  std::vector<TaskId> members;
  for (int r = 0; r < 4; ++r) {
    Task t;
    t.kind = TaskKind::AllToAll;
    t.stream = Stream::NcclCp;
    t.rank = r;
    t.comm = oi;
    members.push_back(g.add_task(t, "a2a_q"));
  }
  g.comm(oi).tasks = members;
  g.add_dep(late, members[2]);
  const auto r = test::run_analytic(g, s);
  const CostModel cm(s);
  const RouteModel rm(s, cm);
  const double start = 2e-6 + 1e9 / (3.35e12 * 0.8);
  const double end = start + alltoall_seconds(g.comms()[oi], rm);
  for (const TaskId m : members) EXPECT_NEAR(r.by_task[m].end_s, end, 1e-15);
  EXPECT_EQ(r.by_task[members[0]].peers, (std::vector<std::int32_t>{1, 2, 3}));
  EXPECT_EQ(r.by_task[members[2]].peers, (std::vector<std::int32_t>{3, 0, 1}));
}

}  // namespace
}  // namespace hcpsim
