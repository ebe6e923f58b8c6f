// Exactness of the simgrid executor on hand-built graphs without contention: every expected time is
// the alpha-beta formula latency + bytes / bandwidth (or the compute duration) written out here.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "sim_test_util.h"

namespace hcpsim::sim::testing {
namespace {

constexpr double kRel = 1e-9;
#define EXPECT_TIME(a, b) EXPECT_NEAR((a), (b), kRel * (b) + 1e-15)

TEST(SimExact, IntraNodeTransferIsLatencyPlusBytesOverNvlink) {
  TaskGraph g;
  const double B = 1e8;
  auto m = sendrecv(g, {0, 1}, {{0, 1, B}});
  const auto r = simulate(g, cluster(1, 8, 8));
  EXPECT_TIME(r.end_s[m[0]], kIntraLat_s + B / kNvl_Bps);
  EXPECT_TIME(r.end_s[m[1]], kIntraLat_s + B / kNvl_Bps);
  EXPECT_EQ(r.run.completed, 2u);
}

TEST(SimExact, InterNodeTransferIsLatencyPlusBytesOverNic) {
  TaskGraph g;
  const double B = 3e7;
  auto m = sendrecv(g, {2, 10}, {{2, 10, B}});
  const auto r = simulate(g, cluster(2, 8, 8));
  EXPECT_TIME(r.run.makespan_s, kInterLat_s + B / kNic_Bps);
  EXPECT_TIME(r.end_s[m[0]], kInterLat_s + B / kNic_Bps);
}

TEST(SimExact, EfficiencyScalesTheBandwidthTermOnly) {
  TaskGraph g;
  const double B = 1e8;
  sendrecv(g, {0, 1}, {{0, 1, B}});
  sendrecv(g, {2, 9}, {{2, 9, B}});
  const auto r = simulate(g, cluster(2, 8, 8), unit_costs(8, 0.8, 0.5));
  EXPECT_TIME(r.end_s[0], kIntraLat_s + B / (0.8 * kNvl_Bps));
  EXPECT_TIME(r.end_s[2], kInterLat_s + B / (0.5 * kNic_Bps));
}

TEST(SimExact, ComputeChainAndTransferGatedByBothEndpoints) {
  // rank 0: 1 ms compute then send; rank 1: 3 ms compute then recv. The transfer starts at 3 ms.
  TaskGraph g;
  const double B = 5e7;
  const TaskId c0 = compute(g, 0, 1e-3);
  const TaskId c1 = compute(g, 1, 3e-3);
  auto m = sendrecv(g, {0, 1}, {{0, 1, B}});
  g.add_dep(c0, m[0]);
  g.add_dep(c1, m[1]);
  const TaskId after = compute(g, 0, 2e-3);
  g.add_dep(m[0], after);
  const auto r = simulate(g, cluster(1, 8, 8));
  EXPECT_TIME(r.start_s[m[0]], 1e-3);   // the send task is ready (launched) at 1 ms
  const double xfer_end = 3e-3 + kIntraLat_s + B / kNvl_Bps;
  EXPECT_TIME(r.end_s[m[0]], xfer_end);
  EXPECT_TIME(r.end_s[m[1]], xfer_end);
  EXPECT_TIME(r.end_s[after], xfer_end + 2e-3);
  EXPECT_TIME(r.run.makespan_s, xfer_end + 2e-3);
}

TEST(SimExact, TwoKernelsOnOneGpuShareIt) {
  TaskGraph g;
  compute(g, 3, 1e-3);
  compute(g, 3, 1e-3);
  const TaskId other = compute(g, 4, 1e-3);
  const auto r = simulate(g, cluster(1, 8, 8));
  EXPECT_TIME(r.end_s[0], 2e-3);
  EXPECT_TIME(r.end_s[1], 2e-3);
  EXPECT_TIME(r.end_s[other], 1e-3);
}

TEST(SimExact, OverlappingKernelsShareTheGpuInBothComputeModes) {
  // 1 ms and 3 ms kernels start together, a 2 ms one joins at 1 ms (after a 1 ms predecessor on
  // another GPU). 0-1 ms: two share -> each gets 0.5 ms of work. 1 ms: the first has 0.5 ms left,
  // three share: it ends at 1 + 3*0.5 = 2.5 ms. Then two share: the 3 ms one has 3-0.5-0.5 = 2 ms
  // left and the 2 ms one 2-0.5 = 1.5 ms: the 2 ms one ends at 2.5 + 2*1.5 = 5.5 ms, the 3 ms one
  // then has 0.5 ms left alone: 6 ms.
  for (ComputeMode mode : {ComputeMode::Timer, ComputeMode::Exec}) {
    TaskGraph g;
    const TaskId a = compute(g, 0, 1e-3);
    const TaskId b = compute(g, 0, 3e-3);
    const TaskId pre = compute(g, 1, 1e-3);
    const TaskId c = compute(g, 0, 2e-3);
    g.add_dep(pre, c);
    const auto r = simulate(g, cluster(1, 8, 8), unit_costs(8), mode);
    EXPECT_TIME(r.end_s[a], 2.5e-3);
    EXPECT_TIME(r.end_s[c], 5.5e-3);
    EXPECT_TIME(r.end_s[b], 6e-3);
  }
}

TEST(SimExact, RunningNcclTasksTakeTheirComputeLoadUntilEachEnds) {
  // A 1 ms kernel on GPU 0 while two send/recv tasks of GPU 0 run, taking 0.25 (op A) and 0.125
  // (op B) of its compute (their peers on GPUs 1 and 2 take none). The flows use opposite
  // directions of GPU 0's NVLink port, so neither slows the other; one moves 40 MB (ends at
  // 2 us + 0.4 ms), the other 80 MB (2 us + 0.8 ms), both ways round. The kernel runs at
  // 1 - 0.375 until the first ends, then at 1 - the load of the one still running, then alone.
  for (const bool a_first : {true, false}) {
    SCOPED_TRACE(a_first ? "A ends first" : "B ends first");
    const double bytes_a = a_first ? 4e7 : 8e7, bytes_b = a_first ? 8e7 : 4e7;
    TaskGraph g;
    const TaskId k = compute(g, 0, 1e-3);
    const auto a = sendrecv(g, {1, 0}, {{1, 0, bytes_a}});
    const auto b = sendrecv(g, {0, 2}, {{0, 2, bytes_b}});
    PlanCosts c = unit_costs(8);
    c.comm_load = [](const Task& t) { return t.rank != 0 ? 0.0 : t.comm == 0 ? 0.25 : 0.125; };
    const auto r = simulate(g, cluster(1, 8, 8), c);
    const double end_a = kIntraLat_s + bytes_a / kNvl_Bps, end_b = kIntraLat_s + bytes_b / kNvl_Bps;
    EXPECT_TIME(r.end_s[a[1]], end_a);
    EXPECT_TIME(r.end_s[b[0]], end_b);
    const double first = std::min(end_a, end_b), last = std::max(end_a, end_b);
    const double share_then = a_first ? 1 - 0.125 : 1 - 0.25;
    EXPECT_TIME(r.end_s[k], last + (1e-3 - 0.625 * first - share_then * (last - first)));
    // Without the load the kernel is not slowed.
    c.comm_load = [](const Task&) { return 0.0; };
    EXPECT_TIME(simulate(g, cluster(1, 8, 8), c).end_s[k], 1e-3);
  }
}

TEST(SimExact, NcclTasksEndTheirHostOverheadAfterTheirFlows) {
  // Two send/recv ops on disjoint GPUs end their flows together; their four tasks end 0.1 ms later
  // (the executor sets one timer for tasks due at the same instant), and so do the kernels that
  // wait for them. A third op of another size ends alone, with an overhead of its own.
  TaskGraph g;
  const auto a = sendrecv(g, {0, 1}, {{0, 1, 4e7}});
  const auto b = sendrecv(g, {2, 3}, {{2, 3, 4e7}});
  const auto c = sendrecv(g, {4, 5}, {{4, 5, 1e7}});
  const TaskId after_a = compute(g, 1, 1e-3);
  const TaskId after_b = compute(g, 2, 2e-3);
  g.add_dep(a[1], after_a);
  g.add_dep(b[0], after_b);
  PlanCosts costs = unit_costs(8);
  costs.comm_overhead_s = [](const Task& t) { return t.comm == 2 ? 3e-5 : 1e-4; };
  const auto r = simulate(g, cluster(1, 8, 8), costs);
  const double flows_ab = kIntraLat_s + 4e7 / kNvl_Bps, end_ab = flows_ab + 1e-4;
  for (TaskId t : {a[0], a[1], b[0], b[1]}) {
    EXPECT_TIME(r.start_s[t], 0.0);
    EXPECT_TIME(r.end_s[t], end_ab);
  }
  EXPECT_TIME(r.end_s[c[0]], kIntraLat_s + 1e7 / kNvl_Bps + 3e-5);
  EXPECT_TIME(r.end_s[c[1]], kIntraLat_s + 1e7 / kNvl_Bps + 3e-5);
  EXPECT_TIME(r.start_s[after_a], end_ab);
  EXPECT_TIME(r.end_s[after_a], end_ab + 1e-3);
  EXPECT_TIME(r.end_s[after_b], end_ab + 2e-3);
  EXPECT_EQ(r.run.completed, g.size());
}

TEST(SimExact, AllToAllIsPairwiseFlowsLimitedByEachPort) {
  // n ranks in one node, T bytes per rank: each port carries (n-1) pieces of T/n out and in.
  TaskGraph g;
  const int n = 4;
  const double T = 4e8;
  auto m = collective(g, TaskKind::AllToAll, {0, 1, 2, 3}, T);
  const auto r = simulate(g, cluster(1, 8, 8));
  for (TaskId t : m) EXPECT_TIME(r.end_s[t], kIntraLat_s + (n - 1) * (T / n) / kNvl_Bps);
  EXPECT_EQ(r.run.flows, static_cast<std::size_t>(n * (n - 1)));
}

TEST(SimExact, AllGatherIsAnNcclRingOfNMinusOneSteps) {
  TaskGraph g;
  const int n = 4;
  const double B = 1e8;
  auto m = collective(g, TaskKind::AllGather, {0, 1, 2, 3}, B);
  const auto r = simulate(g, cluster(1, 8, 8));
  EXPECT_TIME(r.run.makespan_s, (n - 1) * (kIntraLat_s + B / kNvl_Bps));
}

TEST(SimExact, RingAcrossNodesIsPacedByTheSlowestHop) {
  // ranks 0,1 on node 0 and 8,9 on node 1: two of the four hops are inter-node.
  TaskGraph g;
  const int n = 4;
  const double B = 1e8;
  collective(g, TaskKind::ReduceScatter, {0, 1, 8, 9}, B);
  const auto r = simulate(g, cluster(2, 8, 8));
  EXPECT_TIME(r.run.makespan_s, (n - 1) * (kInterLat_s + B / kNic_Bps));
}

TEST(SimExact, AllReduceIsTwoNMinusOneStepsOfOneNth) {
  TaskGraph g;
  const int n = 4;
  const double B = 4e8;
  collective(g, TaskKind::AllReduce, {4, 5, 6, 7}, B);
  const auto r = simulate(g, cluster(1, 8, 8));
  EXPECT_TIME(r.run.makespan_s, 2 * (n - 1) * (kIntraLat_s + (B / n) / kNvl_Bps));
}

TEST(SimExact, CollectiveStartsWhenEveryMemberIsReady) {
  TaskGraph g;
  const double T = 2e8;
  const TaskId late = compute(g, 1, 5e-3);
  auto m = collective(g, TaskKind::AllToAll, {0, 1}, T);
  g.add_dep(late, m[1]);
  const auto r = simulate(g, cluster(1, 8, 8));
  EXPECT_TIME(r.start_s[m[0]], 0.0);
  EXPECT_TIME(r.end_s[m[0]], 5e-3 + kIntraLat_s + (T / 2) / kNvl_Bps);
}

TEST(SimExact, ZeroByteTransferCostsTheLatency) {
  TaskGraph g;
  auto m = sendrecv(g, {0, 9}, {{0, 9, 0.0}});
  const auto r = simulate(g, cluster(2, 8, 8));
  EXPECT_TIME(r.end_s[m[1]], kInterLat_s);
}

TEST(SimExact, CollectiveMembersEndTogetherAtTheSlowestLink) {
  // a2a over {0, 1, 8}: rank 8's pieces cross the NIC (10 GB/s), the 0<->1 pieces NVLink.
  // Rank 8 sends two pieces of T/3 through its NIC: lat + 2(T/3)/nic; every member ends then.
  TaskGraph g;
  const double T = 3e8;
  auto m = collective(g, TaskKind::AllToAll, {0, 1, 8}, T);
  const auto r = simulate(g, cluster(2, 8, 8));
  for (TaskId t : m) EXPECT_TIME(r.end_s[t], kInterLat_s + 2 * (T / 3) / kNic_Bps);
}

TEST(SimExact, SelfTransfersAreSkipped) {
  TaskGraph g;
  auto m = sendrecv(g, {3}, {{3, 3, 1e9}});
  const TaskId after = compute(g, 3, 1e-3);
  g.add_dep(m[0], after);
  const auto r = simulate(g, cluster(1, 8, 8));
  EXPECT_TIME(r.end_s[m[0]], 0.0);
  EXPECT_TIME(r.run.makespan_s, 1e-3);
  EXPECT_EQ(r.run.flows, 0u);
}

TEST(SimExact, RunsRepeatedlyInOneProcess) {
  // SimGrid's engine cannot be reset; each run uses its own child, so results repeat exactly.
  TaskGraph g;
  sendrecv(g, {0, 9}, {{0, 9, 1e8}});
  const double first = simulate(g, cluster(2, 8, 8)).run.makespan_s;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(simulate(g, cluster(2, 8, 8)).run.makespan_s, first);
}

TEST(SimErrors, CycleEndsWithAnErrorNamingStuckTasks) {
  TaskGraph g;
  const TaskId a = compute(g, 0, 1e-3, "first");
  const TaskId b = compute(g, 0, 1e-3, "second");
  const TaskId free_task = compute(g, 1, 1e-3, "free");
  g.add_dep(a, b);
  g.add_dep(b, a);
  (void)free_task;
  try {
    simulate(g, cluster(1, 8, 8));
    FAIL() << "a cyclic graph must not finish";
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cannot finish"), std::string::npos) << msg;
    EXPECT_NE(msg.find("1 of 3 tasks completed"), std::string::npos) << msg;
    EXPECT_NE(msg.find("L0.fwd.first"), std::string::npos) << msg;
    EXPECT_NE(msg.find("predecessors"), std::string::npos) << msg;
  }
}

TEST(SimErrors, DeadlockedSendRecvNamesTheWaitingTransfer) {
  // rank 1's receive task waits for rank 0's send task to finish, which needs rank 1 ready: deadlock.
  TaskGraph g;
  auto m = sendrecv(g, {0, 1}, {{0, 1, 1e6}});
  const TaskId gate = compute(g, 1, 1e-3, "gate");
  g.add_dep(m[0], gate);
  g.add_dep(gate, m[1]);
  try {
    simulate(g, cluster(1, 8, 8));
    FAIL() << "a deadlocked graph must not finish";
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("transfers never finished"), std::string::npos) << msg;
    EXPECT_NE(msg.find("rank 0"), std::string::npos) << msg;
  }
}

TEST(SimErrors, NegativeComputeCostFoundInTheChildIsBadInput) {
  // Compute costs are asked for in the child, as tasks become ready; the parent still throws
  // std::invalid_argument with the task's name.
  TaskGraph g;
  const TaskId ok = compute(g, 0, 1e-3, "fine");
  const TaskId bad = compute(g, 1, -1e-3, "bad_kernel");
  g.add_dep(ok, bad);
  try {
    simulate(g, cluster(1, 8, 8));
    FAIL() << "a negative compute cost must be rejected";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bad_kernel"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(">= 0"), std::string::npos) << e.what();
  }
}

TEST(SimErrors, RankOutsideTheClusterIsRejectedBeforeSimulating) {
  TaskGraph g;
  compute(g, 8, 1e-3);
  EXPECT_THROW(simulate(g, cluster(1, 8, 8)), std::invalid_argument);
}

}  // namespace
}  // namespace hcpsim::sim::testing
