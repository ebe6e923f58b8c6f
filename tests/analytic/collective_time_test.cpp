#include "engine/analytic/collective_time.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

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

TEST(Collectives, RingLatencyTermPipelinesTheRingAndPaysNcclLatencyOnce) {
  // `nccl_ring_latency` alone (docs/metrics.md 9.8): 2 nodes x 8 GPUs, one NIC per GPU. The
  // all_reduce costs NCCL's Simple ring latency once, then every hop carries 30 chunks at its
  // plateau; the slowest (NIC) hop sets the time, its route latency paid once.
  Scenario s = test::dgx_scenario(2, 8);
  s.cluster.efficiency.terms.nccl_ring_latency = true;
  std::vector<std::int32_t> ranks;
  for (int i = 0; i < 16; ++i) ranks.push_back(i);
  const double buf = 64e6, chunk = buf / 16;
  const auto seconds = [&](const Scenario& sc) {
    const CostModel cm(sc);
    const RouteModel rm(sc, cm);
    return ring_collective_seconds(collective(TaskKind::AllReduce, ranks, buf), rm);
  };
  const double nccl_lat = 1.4 * (8.4 + 28 * 3.4 + 2 * 14.0) * 1e-6;
  const double expected = nccl_lat + 5e-6 + 30 * chunk / (50e9 * 0.94);
  EXPECT_NEAR(seconds(s), expected, expected * 1e-12);
  // The network's latency is paid once per call, not once per step: 10 us more per route costs
  // 10 us, where the step-by-step ring (term off) pays it on each of the 30 steps.
  Scenario slow = s;
  slow.cluster.inter_node_latency_s += 10e-6;
  EXPECT_NEAR(seconds(slow) - seconds(s), 10e-6, 1e-12);
  Scenario off = s, off_slow = slow;
  off.cluster.efficiency.terms.nccl_ring_latency = false;
  off_slow.cluster.efficiency.terms.nccl_ring_latency = false;
  EXPECT_NEAR(seconds(off_slow) - seconds(off), 30 * 10e-6, 1e-12);
  // One node: no network step; the ring is NVLink-bound at the plateau.
  Scenario one = test::dgx_scenario(1, 8);
  one.cluster.efficiency.terms.nccl_ring_latency = true;
  const CostModel cm1(one);
  const RouteModel rm1(one, cm1);
  const double b1 = 8e6 * 8, c1 = b1 / 8;
  const double e1 = (8.4 + 14 * 3.4) * 1e-6 + 2e-6 + 14 * c1 / (450e9 * 0.82);
  std::vector<std::int32_t> r8{0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_NEAR(ring_collective_seconds(collective(TaskKind::AllReduce, r8, b1), rm1), e1, e1 * 1e-12);
}

TEST(Collectives, ProtocolsTermPicksLLForSmallRings) {
  // `nccl_protocols` with `nccl_ring_latency` (docs/metrics.md 9.9): a 64 KiB all_gather shard on
  // 8 H100-class GPUs runs LL (6.6 + 7 x 0.6 us, a quarter of the bandwidth up to 87.7 GB/s), far
  // cheaper than Simple's 8.4 + 7 x 3.4 us.
  Scenario s = test::dgx_scenario(1, 8);
  s.cluster.efficiency.terms.nccl_ring_latency = true;
  s.cluster.efficiency.terms.nccl_protocols = true;
  const CostModel cm(s);
  const RouteModel rm(s, cm);
  const std::vector<std::int32_t> r8{0, 1, 2, 3, 4, 5, 6, 7};
  const double shard = 64.0 * 1024;
  const double ll = (6.6 + 7 * 0.6) * 1e-6 + 2e-6 + 7 * shard / std::min(87.7e9, 0.25 * 450e9 * 0.82);
  const RingPipeline p = ring_collective_pipeline(collective(TaskKind::AllGather, r8, shard), rm);
  EXPECT_EQ(p.choice.protocol, NcclProtocol::LL);
  EXPECT_NEAR(ring_collective_seconds(collective(TaskKind::AllGather, r8, shard), rm), ll, ll * 1e-12);
  s.cluster.efficiency.terms.nccl_protocols = false;
  const CostModel cm_off(s);
  const RouteModel rm_off(s, cm_off);
  const double simple = (8.4 + 7 * 3.4) * 1e-6 + 2e-6 + 7 * shard / (450e9 * 0.82);
  EXPECT_NEAR(ring_collective_seconds(collective(TaskKind::AllGather, r8, shard), rm_off), simple, simple * 1e-12);
  EXPECT_LT(ll, 0.7 * simple);
  EXPECT_THROW(ring_collective_pipeline(collective(TaskKind::AllToAll, r8, shard), rm), std::invalid_argument);
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
