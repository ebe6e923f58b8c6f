// The `nccl_p2p_channels` term in the SimGrid lowering (docs/metrics.md section 9.10): a send/recv
// flow moves bytes / p2p efficiency on its path, so that alone it takes what the analytic backend
// predicts with NCCL's channel cap.
#include <gtest/gtest.h>

#include "engine/analytic/analytic_backend.h"
#include "sim/simgrid_backend.h"
#include "tests/cost/test_scenario.h"
#include "tests/sim/backend_makespan.h"
#include "tests/sim/sim_test_util.h"

namespace hcpsim::sim::testing {
namespace {

TEST(SimP2pChannels, LoweringUsesTheP2pEfficiencyOfEachTransfer) {
  TaskGraph g;
  sendrecv(g, {0, 1, 9}, {{0, 1, 1e6}, {1, 9, 2e6}});
  PlanCosts c = unit_costs(8);
  c.p2p_efficiency = [](const CommOp& op, std::int32_t src, std::int32_t, double bytes) {
    EXPECT_EQ(op.ranks.size(), 3u);
    return src == 0 ? 0.5 : bytes / 8e6;
  };
  const OpFlows f = lower_comm_op(g, 0, c);
  ASSERT_EQ(f.flows.size(), 2u);
  EXPECT_DOUBLE_EQ(f.flows[0].wire_bytes, 1e6 / 0.5);
  EXPECT_DOUBLE_EQ(f.flows[1].wire_bytes, 2e6 / 0.25);
  // Without the function: the op's link efficiency (1 in unit costs).
  c.p2p_efficiency = nullptr;
  EXPECT_DOUBLE_EQ(lower_comm_op(g, 0, c).flows[1].wire_bytes, 2e6);
}

TEST(SimP2pChannels, RingOfEightOnOneA100NodeAgreesWithAnalytic) {
  BackendRegistry reg;
  register_simgrid_backend(reg);
  auto sg = reg.create("simgrid");
  AnalyticBackend an;
  TaskGraph g;
  std::vector<int> ranks;
  std::vector<Transfer> ring;
  for (int r = 0; r < 8; ++r) {
    ranks.push_back(r);
    ring.push_back({r, (r + 1) % 8, 256.0 * 1024 * 1024});
  }
  sendrecv(g, ranks, ring);
  Scenario on = test::dgx_scenario(1, 8);
  on.cluster.gpu.name = "a100-sxm-80gb";
  on.cluster.intra_node_bandwidth_Bps = 300e9;
  on.cluster.efficiency.terms.nccl_p2p_channels = true;
  const double a = makespan(an, g, on), b = makespan(*sg, g, on);
  ASSERT_GT(a, 0);
  EXPECT_NEAR(b / a, 1.0, 1e-3) << "analytic " << a << " simgrid " << b;
  Scenario off = on;
  off.cluster.efficiency.terms.nccl_p2p_channels = false;
  const double b_off = makespan(*sg, g, off);
  EXPECT_NEAR(b_off / makespan(an, g, off), 1.0, 1e-3);
  // 16 channels x 12 GB/s = 192 GB/s against the link's 0.82 x 300 GB/s.
  EXPECT_NEAR(b / b_off, 0.82 * 300.0 / 192.0, 0.01);
}

}  // namespace
}  // namespace hcpsim::sim::testing
