// NIC faults in the simgrid platform: degraded bandwidth, failed NIC rerouted, infeasible node.
#include <gtest/gtest.h>

#include <stdexcept>

#include "engine/scenario/scenario.h"
#include "sim/simgrid_backend.h"
#include "sim_test_util.h"

namespace hcpsim::sim::testing {
namespace {

#define EXPECT_TIME(a, b) EXPECT_NEAR((a), (b), 1e-9 * (b))

TEST(SimFaults, DegradedNicSlowsTheFlowsThroughItByTheFactor) {
  TaskGraph g;
  const double B = 1e8;
  auto through = sendrecv(g, {3, 11}, {{3, 11, B}});   // node 0 GPU 3 -> NIC 3
  auto other = sendrecv(g, {4, 12}, {{4, 12, B}});     // NIC 4, healthy
  ClusterConfig c = cluster(2, 8, 8);
  c.faults.push_back(degraded_nic(0, 3, 0.25));
  const auto r = simulate(g, c);
  EXPECT_TIME(r.end_s[through[0]], kInterLat_s + B / (0.25 * kNic_Bps));
  EXPECT_TIME(r.end_s[other[0]], kInterLat_s + B / kNic_Bps);
}

TEST(SimFaults, FailedNicMovesItsTrafficToTheNextNicOfTheNode) {
  // 2 NICs per node; NIC 0 of node 0 fails, so GPUs 0 and 1 of node 0 both send through NIC 1.
  TaskGraph g;
  const double B = 1e8;
  sendrecv(g, {0, 2}, {{0, 2, B}});
  sendrecv(g, {1, 3}, {{1, 3, B}});
  ClusterConfig c = cluster(2, 2, 2);
  const double healthy = simulate(g, c).run.makespan_s;
  EXPECT_TIME(healthy, kInterLat_s + B / kNic_Bps);
  c.faults.push_back(failed_nic(0, 0));
  EXPECT_TIME(simulate(g, c).run.makespan_s, kInterLat_s + 2 * B / kNic_Bps);
  const PlatformSpec p = make_platform_spec(c);
  EXPECT_EQ(p.nic_of_rank[0], 1);
  EXPECT_EQ(p.nic_of_rank[2], 0);   // node 1 keeps its rails
}

TEST(SimFaults, NodeWithoutWorkingNicIsInfeasible) {
  ClusterConfig c = cluster(2, 8, 2);
  c.faults = {failed_nic(1, 0), failed_nic(1, 1)};
  try {
    make_platform_spec(c);
    FAIL() << "expected an infeasible platform";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("infeasible: every NIC of node 1 failed"), std::string::npos) << e.what();
  }
  c.nodes = 1;
  c.faults = {failed_nic(0, 0), failed_nic(0, 1)};
  EXPECT_NO_THROW(make_platform_spec(c));   // a single node never uses its NICs
}

TEST(SimFaults, FaultOutsideTheClusterNamesTheField) {
  ClusterConfig c = cluster(2, 8, 8);
  c.faults = {degraded_nic(0, 9, 0.5)};
  try {
    make_platform_spec(c);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cluster.faults[0].nic"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0..7"), std::string::npos) << e.what();
  }
  c.faults = {degraded_nic(0, 1, 1.5)};
  EXPECT_THROW(make_platform_spec(c), std::invalid_argument);
}

TEST(SimFaults, ExplainRouteShowsTheReroutedNic) {
  Scenario s;
  s.cluster = cluster(2, 2, 2);
  const std::string before = explain_route(s, 0, 2);
  EXPECT_NE(before.find("nic-n0-0_UP"), std::string::npos) << before;
  s.cluster.faults.push_back(failed_nic(0, 0));
  const std::string after = explain_route(s, 0, 2);
  EXPECT_EQ(after.find("nic-n0-0"), std::string::npos) << after;
  EXPECT_NE(after.find("nic-n0-1_UP"), std::string::npos) << after;
  EXPECT_NE(after.find("nic-n1-0_DOWN"), std::string::npos) << after;
}

}  // namespace
}  // namespace hcpsim::sim::testing
