// The `nccl_rails` term in the SimGrid lowering (docs/metrics.md section 9.7): an inter-node flow that
// NCCL spreads over several NICs moves bytes / speed-up on its one SimGrid path, so that alone it
// takes what the analytic backend predicts for the rails.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/analytic/analytic_backend.h"
#include "engine/layout/rank_layout.h"
#include "sim/simgrid_backend.h"
#include "tests/cost/test_scenario.h"
#include "tests/sim/backend_makespan.h"
#include "tests/sim/sim_test_util.h"

namespace hcpsim::sim::testing {
namespace {

Scenario two_nodes(int nics, bool rails) {
  Scenario s = test::dgx_scenario(2, 8);
  s.cluster.nics_per_node = nics;
  s.cluster.efficiency.terms.nccl_rails = rails;
  return s;
}

std::vector<int> all_ranks() {
  std::vector<int> r;
  for (int i = 0; i < 16; ++i) r.push_back(i);
  return r;
}

TEST(SimRails, LoweringDividesWireBytesByTheHopsSpeedUp) {
  TaskGraph g;
  collective(g, TaskKind::AllGather, {0, 1, 2, 3}, 1e6);
  PlanCosts c = unit_costs(2);
  c.ring_rail_speedups = [](const CommOp&) { return std::vector<double>{1, 4, 1, 4}; };
  const OpFlows f = lower_comm_op(g, 0, c);
  ASSERT_EQ(f.flows.size(), 12u);   // 3 steps x 4 hops
  EXPECT_DOUBLE_EQ(f.flows[0].wire_bytes, 1e6);
  EXPECT_DOUBLE_EQ(f.flows[1].wire_bytes, 1e6 / 4);   // hop 1 -> 2 crosses nodes on 4 rails
  EXPECT_DOUBLE_EQ(f.flows[5].wire_bytes, 1e6 / 4);
  c.ring_rail_speedups = [](const CommOp&) { return std::vector<double>{1, 0.5, 1, 1}; };
  EXPECT_THROW(lower_comm_op(g, 0, c), std::invalid_argument);
  c.ring_rail_speedups = [](const CommOp&) { return std::vector<double>{1, 1}; };
  EXPECT_THROW(lower_comm_op(g, 0, c), std::invalid_argument);
}

TEST(SimRails, AllReduceAcrossNodesAgreesWithAnalyticAndUsesEveryNic) {
  BackendRegistry reg;
  register_simgrid_backend(reg);
  auto sg = reg.create("simgrid");
  AnalyticBackend an;
  TaskGraph g;
  collective(g, TaskKind::AllReduce, all_ranks(), 256e6);
  const Scenario on = two_nodes(4, true);
  const double a = makespan(an, g, on), b = makespan(*sg, g, on);
  ASSERT_GT(a, 0);
  EXPECT_NEAR(b / a, 1.0, 1e-3) << "analytic " << a << " simgrid " << b;
  const Scenario off = two_nodes(4, false);
  const double b_off = makespan(*sg, g, off);
  EXPECT_NEAR(b_off / makespan(an, g, off), 1.0, 1e-3);
  EXPECT_GT(b_off, 3.0 * b);   // four rails instead of one on the NIC-bound hop
}

TEST(SimRails, SendRecvPairOnTwoNicsPerGpuAgreesWithAnalytic) {
  BackendRegistry reg;
  register_simgrid_backend(reg);
  auto sg = reg.create("simgrid");
  AnalyticBackend an;
  TaskGraph g;
  sendrecv(g, {3, 11}, {{3, 11, 64e6}, {11, 3, 64e6}});
  const Scenario on = two_nodes(16, true);
  const double a = makespan(an, g, on), b = makespan(*sg, g, on);
  EXPECT_NEAR(b / a, 1.0, 1e-3) << "analytic " << a << " simgrid " << b;
  const Scenario off = two_nodes(16, false);
  EXPECT_GT(makespan(*sg, g, off), 1.8 * b);
}

}  // namespace
}  // namespace hcpsim::sim::testing
