// Lowering of comm ops into flows (no SimGrid involved).
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim_test_util.h"

namespace hcpsim::sim::testing {
namespace {

TEST(FlowPlan, AllToAllIsEveryOrderedPairOfOneNth) {
  TaskGraph g;
  collective(g, TaskKind::AllToAll, {0, 1, 2}, 300);
  const FlowPlan p = make_flow_plan(g, unit_costs(8));
  ASSERT_EQ(p.flows.size(), 6u);
  for (const auto& f : p.flows) {
    EXPECT_NE(f.src, f.dst);
    EXPECT_DOUBLE_EQ(f.bytes, 100);
    EXPECT_EQ(f.gate, 1u);
  }
  EXPECT_EQ(p.op_flows[0], 6u);   // members end together with the op's last flow
  for (TaskId t = 0; t < 3; ++t) EXPECT_EQ(p.flow_count[t], 0u);
}

TEST(FlowPlan, RingStepsDependOnOwnSendAndOnTheChunkReceived) {
  TaskGraph g;
  collective(g, TaskKind::AllGather, {0, 1, 2}, 50);
  const FlowPlan p = make_flow_plan(g, unit_costs(8));
  ASSERT_EQ(p.flows.size(), 6u);   // 2 steps x 3 members
  // step 1, member 1 (flow 4) waits for flow 1 (member 1, step 0) and flow 0 (member 0, step 0)
  EXPECT_EQ(p.flows[4].gate, 2u);
  EXPECT_EQ(p.flows[4].src, 1);
  EXPECT_EQ(p.flows[4].dst, 2);
  auto next_of = [&](std::uint32_t f) {
    return std::vector<std::uint32_t>(p.flow_next.items.begin() + p.flow_next.begin[f],
                                      p.flow_next.items.begin() + p.flow_next.begin[f + 1]);
  };
  const auto n0 = next_of(0), n1 = next_of(1);
  EXPECT_NE(std::find(n0.begin(), n0.end(), 4u), n0.end());
  EXPECT_NE(std::find(n1.begin(), n1.end(), 4u), n1.end());
}

TEST(FlowPlan, WireBytesAreBytesOverEfficiencyOfTheLinkClass) {
  TaskGraph g;
  sendrecv(g, {0, 1, 9}, {{0, 1, 1000}, {1, 9, 1000}, {9, 9, 1000}});
  const FlowPlan p = make_flow_plan(g, unit_costs(8, 0.5, 0.25));
  ASSERT_EQ(p.flows.size(), 2u);   // the self-transfer is skipped
  EXPECT_DOUBLE_EQ(p.flows[0].wire_bytes, 2000);
  EXPECT_DOUBLE_EQ(p.flows[1].wire_bytes, 4000);
}

TEST(FlowPlan, MalformedOpsAreRejectedWithTheTaskName) {
  TaskGraph g;
  sendrecv(g, {0, 1}, {{0, 5, 10}});
  try {
    make_flow_plan(g, unit_costs(8));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("0->5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("kv_send_recv"), std::string::npos) << e.what();
  }
  TaskGraph h;
  sendrecv(h, {0, 1}, {{0, 1, 10}});
  EXPECT_THROW(make_flow_plan(h, unit_costs(8, 0.0, 1.0)), std::invalid_argument);
}

}  // namespace
}  // namespace hcpsim::sim::testing
