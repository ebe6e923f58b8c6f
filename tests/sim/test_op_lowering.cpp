// Lowering of comm ops into flows (no SimGrid involved).
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim_test_util.h"

namespace hcpsim::sim::testing {
namespace {

TEST(OpLowering, AllToAllIsEveryOrderedPairOfOneNth) {
  TaskGraph g;
  collective(g, TaskKind::AllToAll, {0, 1, 2}, 300);
  const OpFlows p = lower_comm_op(g, 0, unit_costs(8));
  ASSERT_EQ(p.flows.size(), 6u);
  EXPECT_EQ(p.initial, 6u);   // all start with the op
  EXPECT_EQ(p.ring_members, 0u);
  std::vector<std::pair<int, int>> pairs;
  for (const auto& f : p.flows) {
    EXPECT_NE(f.src, f.dst);
    EXPECT_DOUBLE_EQ(f.wire_bytes, 100);
    EXPECT_EQ(f.gate, 1u);
    EXPECT_EQ(f.src, g.task(g.comms()[0].tasks[f.src_member]).rank);
    EXPECT_EQ(f.dst, g.task(g.comms()[0].tasks[f.dst_member]).rank);
    pairs.emplace_back(f.src, f.dst);
  }
  std::sort(pairs.begin(), pairs.end());
  EXPECT_EQ(std::unique(pairs.begin(), pairs.end()), pairs.end());
  EXPECT_TRUE(p.collective());
}

TEST(OpLowering, RingStepsDependOnOwnSendAndOnTheChunkReceived) {
  TaskGraph g;
  collective(g, TaskKind::AllGather, {0, 1, 2}, 50);
  const OpFlows p = lower_comm_op(g, 0, unit_costs(8));
  ASSERT_EQ(p.flows.size(), 6u);   // 2 steps x 3 members
  EXPECT_EQ(p.initial, 3u);
  EXPECT_EQ(p.ring_members, 3u);
  // step 1, member 1 (flow 4) waits for flow 1 (member 1, step 0) and flow 0 (member 0, step 0)
  EXPECT_EQ(p.flows[4].gate, 2u);
  EXPECT_EQ(p.flows[4].src, 1);
  EXPECT_EQ(p.flows[4].dst, 2);
  auto next_of = [&](std::uint32_t f) {
    std::uint32_t out[2];
    const std::uint32_t n = p.ring_next(f, out);
    return std::vector<std::uint32_t>(out, out + n);
  };
  const auto n0 = next_of(0), n1 = next_of(1);
  EXPECT_NE(std::find(n0.begin(), n0.end(), 4u), n0.end());
  EXPECT_NE(std::find(n1.begin(), n1.end(), 4u), n1.end());
  EXPECT_TRUE(next_of(4).empty());   // the last step opens nothing
  // Every flow after the first step is opened by exactly two flows.
  std::vector<int> openers(p.flows.size(), 0);
  for (std::uint32_t f = 0; f < p.flows.size(); ++f)
    for (std::uint32_t n : next_of(f)) ++openers[n];
  for (std::uint32_t f = 0; f < p.flows.size(); ++f) EXPECT_EQ(openers[f], f < 3 ? 0 : 2) << f;
}

TEST(OpLowering, AllReduceHasTwiceTheStepsOfOneNth) {
  TaskGraph g;
  collective(g, TaskKind::AllReduce, {0, 1, 2, 3}, 400);
  const OpFlows p = lower_comm_op(g, 0, unit_costs(8));
  ASSERT_EQ(p.flows.size(), 2u * 3u * 4u);
  for (const auto& f : p.flows) EXPECT_DOUBLE_EQ(f.wire_bytes, 100);
}

TEST(OpLowering, SendRecvGatesEachFlowOnBothEndpoints) {
  TaskGraph g;
  const auto m = sendrecv(g, {0, 1, 9}, {{0, 1, 1000}, {1, 9, 1000}, {9, 9, 1000}});
  const OpFlows p = lower_comm_op(g, 0, unit_costs(8, 0.5, 0.25));
  ASSERT_EQ(p.flows.size(), 2u);   // the self-transfer is skipped
  EXPECT_FALSE(p.collective());
  EXPECT_DOUBLE_EQ(p.flows[0].wire_bytes, 2000);   // intra-node at 0.5
  EXPECT_DOUBLE_EQ(p.flows[1].wire_bytes, 4000);   // inter-node at 0.25
  EXPECT_EQ(p.flows[0].gate, 2u);
  EXPECT_EQ(p.member_flows, (std::vector<std::uint32_t>{1, 2, 1}));
  for (std::uint32_t i = 0; i < 3; ++i) EXPECT_EQ(p.member_of(m[i]), i);
  // member 1 (rank 1) opens both flows, member 2 (rank 9) only the second
  EXPECT_EQ(p.gate_begin[2] - p.gate_begin[1], 2u);
  EXPECT_EQ(p.member_gates[p.gate_begin[2]], 1u);
  TaskGraph other;
  const TaskId lone = compute(other, 0, 1);
  EXPECT_THROW(p.member_of(lone + 100), std::invalid_argument);
}

TEST(OpLowering, MalformedOpsAreRejectedWithTheTaskName) {
  TaskGraph g;
  sendrecv(g, {0, 1}, {{0, 5, 10}});
  for (int pass = 0; pass < 2; ++pass) {
    try {
      if (pass == 0) lower_comm_op(g, 0, unit_costs(8));
      else check_comm_ops(g, 16);
      FAIL();
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("0->5"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("kv_send_recv"), std::string::npos) << e.what();
    }
  }
  TaskGraph h;
  sendrecv(h, {0, 1}, {{0, 1, 10}});
  EXPECT_NO_THROW(check_comm_ops(h, 2));
  EXPECT_THROW(lower_comm_op(h, 0, unit_costs(8, 0.0, 1.0)), std::invalid_argument);   // efficiency 0
  EXPECT_THROW(check_comm_ops(h, 1), std::invalid_argument);                           // rank 1 outside
}

TEST(OpLowering, CheckFindsTasksTheirOpDoesNotList) {
  TaskGraph g;
  sendrecv(g, {0, 1}, {{0, 1, 10}});
  Task stray;
  stray.rank = 0;
  stray.kind = TaskKind::SendRecv;
  stray.comm = 0;
  g.add_task(stray, "stray");
  try {
    check_comm_ops(g, 8);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("3 tasks name this op but it lists 2"), std::string::npos) << e.what();
  }
  TaskGraph k;
  collective(k, TaskKind::AllToAll, {0, 1}, 10);
  k.task(k.comms()[0].tasks[1]).kind = TaskKind::AllGather;
  EXPECT_THROW(check_comm_ops(k, 8), std::invalid_argument);   // kind differs from the op's
}

// Every field of two lowerings, flow by flow.
void expect_same_lowering(const OpFlows& a, const OpFlows& b, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(a.kind, b.kind);
  ASSERT_EQ(a.flows.size(), b.flows.size());
  for (std::size_t f = 0; f < a.flows.size(); ++f) {
    EXPECT_EQ(a.flows[f].src, b.flows[f].src) << f;
    EXPECT_EQ(a.flows[f].dst, b.flows[f].dst) << f;
    EXPECT_EQ(a.flows[f].wire_bytes, b.flows[f].wire_bytes) << f;
    EXPECT_EQ(a.flows[f].src_member, b.flows[f].src_member) << f;
    EXPECT_EQ(a.flows[f].dst_member, b.flows[f].dst_member) << f;
    EXPECT_EQ(a.flows[f].gate, b.flows[f].gate) << f;
  }
  EXPECT_EQ(a.initial, b.initial);
  EXPECT_EQ(a.ring_members, b.ring_members);
  EXPECT_EQ(a.tail_s, b.tail_s);
  EXPECT_EQ(a.gate_begin, b.gate_begin);
  EXPECT_EQ(a.member_gates, b.member_gates);
  EXPECT_EQ(a.member_flows, b.member_flows);
  EXPECT_EQ(a.members_by_task, b.members_by_task);
}

TEST(OpLowering, LoweringIntoReusedStorageEqualsAFreshOne) {
  // The executor lowers each op into a slot that held another op before: nothing of the previous
  // op may survive. Ops of every shape, large before small and back.
  TaskGraph g;
  std::vector<int> ring(20);   // more members than the in-place rank scan handles
  std::vector<Transfer> ring_sends;
  for (int i = 0; i < 20; ++i) {
    ring[static_cast<std::size_t>(i)] = i * 3;
    ring_sends.push_back({i * 3, ((i + 1) % 20) * 3, 1000.0 + i});
  }
  sendrecv(g, ring, ring_sends);                                          // op 0
  sendrecv(g, {4, 12}, {{4, 12, 500}, {12, 4, 700}});                     // op 1: two members
  collective(g, TaskKind::AllToAll, {0, 1, 2, 9}, 400);                   // op 2
  collective(g, TaskKind::AllGather, {0, 8, 16}, 90);                     // op 3: ring steps
  sendrecv(g, {0, 1, 9}, {{0, 1, 1000}, {1, 9, 1000}, {9, 9, 1000}});     // op 4: a self-transfer
  const PlanCosts c = unit_costs(8, 0.5, 0.25);
  OpFlows reused;
  for (std::uint32_t op : {0u, 1u, 2u, 3u, 0u, 4u, 2u, 1u}) {
    lower_comm_op(g, op, c, reused);
    expect_same_lowering(reused, lower_comm_op(g, op, c), "op " + std::to_string(op));
  }
  // The gate lists of the large send/recv op: member i opens its send and the one it receives.
  lower_comm_op(g, 0, c, reused);
  for (std::uint32_t m = 0; m < 20; ++m) {
    ASSERT_EQ(reused.gate_begin[m + 1] - reused.gate_begin[m], 2u) << m;
    EXPECT_EQ(reused.member_flows[m], 2u) << m;
  }
}

TEST(OpLowering, TransfersNameTheFirstMemberOfARankInSmallAndLargeOps) {
  // A rank listed twice: its transfers belong to its first member, whether the op is scanned in
  // place (few members) or through a sorted index (many).
  for (const std::size_t extra : {std::size_t{0}, std::size_t{30}}) {
    TaskGraph g;
    std::vector<int> ranks = {5, 7, 5};
    for (std::size_t i = 0; i < extra; ++i) ranks.push_back(100 + static_cast<int>(i));
    sendrecv(g, ranks, {{5, 7, 10}, {7, 5, 10}});
    const OpFlows p = lower_comm_op(g, 0, unit_costs(8));
    ASSERT_EQ(p.flows.size(), 2u);
    EXPECT_EQ(p.flows[0].src_member, 0u) << extra;
    EXPECT_EQ(p.flows[1].dst_member, 0u) << extra;
    EXPECT_EQ(p.member_flows[2], 0u) << extra;   // the second member of rank 5 has no flow
  }
}

TEST(OpLowering, NegativeComputeCostNamesTheTask) {
  TaskGraph g;
  const TaskId t = compute(g, 0, -1e-3, "bad_kernel");
  try {
    compute_seconds(g, t, unit_costs(8));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bad_kernel"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hcpsim::sim::testing
