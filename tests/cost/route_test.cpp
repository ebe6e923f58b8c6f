#include "engine/cost/route.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/cost/test_scenario.h"

namespace hcpsim {
namespace {

TEST(Route, IntraAndInterNodeAlphaBeta) {
  const Scenario s = test::dgx_scenario(2, 8);
  const CostModel cm(s);
  const RouteModel rm(s, cm);
  const double m = 32.0 * 1024 * 1024;
  const double eff_intra = 0.82 * m / (m + 1024.0 * 1024.0);
  EXPECT_NEAR(rm.transfer_seconds(0, 5, m), 2e-6 + m / (450e9 * eff_intra), 1e-15);
  const double eff_inter = 0.94 * m / (m + 256.0 * 1024.0);
  EXPECT_NEAR(rm.transfer_seconds(3, 11, m), 5e-6 + m / (50e9 * eff_inter), 1e-15);
  EXPECT_EQ(rm.transfer_seconds(4, 4, m), 0.0);
  EXPECT_EQ(rm.route(3, 11).src_nic, 3);
  EXPECT_EQ(rm.route(3, 11).dst_nic, 3);
}

TEST(Route, OversubscriptionCapsTheRailShare) {
  Scenario s = test::dgx_scenario(2, 8);
  s.cluster.oversubscription = 2.0;
  const CostModel cm(s);
  const RouteModel rm(s, cm);
  EXPECT_DOUBLE_EQ(rm.route(0, 8).bottleneck_Bps, 25e9);
  EXPECT_DOUBLE_EQ(rm.route(0, 1).bottleneck_Bps, 450e9);
}

TEST(Route, DegradedAndFailedNics) {
  Scenario s = test::dgx_scenario(2, 8);
  s.cluster.faults.push_back({Fault::Kind::DegradedNic, -1, 1.0, 1, 2, 0.5});   // node 1, NIC 2 at half
  s.cluster.faults.push_back({Fault::Kind::FailedNic, -1, 1.0, 0, 5, 1.0});     // node 0, NIC 5 dead
  s.cluster.faults.push_back({Fault::Kind::FailedNic, -1, 1.0, 0, 6, 1.0});     // node 0, NIC 6 dead
  const CostModel cm(s);
  const RouteModel rm(s, cm);
  EXPECT_DOUBLE_EQ(rm.route(2, 10).bottleneck_Bps, 25e9);   // lands on the degraded NIC
  EXPECT_DOUBLE_EQ(rm.route(10, 2).bottleneck_Bps, 25e9);
  EXPECT_DOUBLE_EQ(rm.route(3, 11).bottleneck_Bps, 50e9);
  EXPECT_EQ(rm.nic_of(5), 7);   // 5 and 6 failed: next working NIC is 7
  EXPECT_EQ(rm.nic_of(6), 7);
  EXPECT_EQ(rm.nic_of(4), 4);
}

// route() reads each rank's NIC and its bandwidth from a table built once; every inter-node route
// must still be what nic_of and nic_Bps define, faults and failover included.
TEST(Route, EveryOneRailRouteMatchesItsNicsAfterFaults) {
  Scenario s = test::dgx_scenario(3, 8);
  s.cluster.oversubscription = 1.5;
  s.cluster.faults.push_back({Fault::Kind::DegradedNic, -1, 1.0, 1, 2, 0.25});
  s.cluster.faults.push_back({Fault::Kind::FailedNic, -1, 1.0, 2, 7, 1.0});
  s.cluster.faults.push_back({Fault::Kind::DegradedNic, -1, 1.0, 2, 0, 0.5});   // 7 fails over to 0
  const CostModel cm(s);
  const RouteModel rm(s, cm);
  int inter = 0;
  for (int src = 0; src < 24; ++src)
    for (int dst = 0; dst < 24; ++dst) {
      const Route r = rm.route(src, dst);
      if (src / 8 == dst / 8) continue;
      ++inter;
      ASSERT_EQ(r.src_nic, rm.nic_of(src));
      ASSERT_EQ(r.dst_nic, rm.nic_of(dst));
      const double want = std::min(rm.nic_Bps(src / 8, rm.nic_of(src)), rm.nic_Bps(dst / 8, rm.nic_of(dst)));
      ASSERT_EQ(r.bottleneck_Bps, want) << src << " -> " << dst;
      ASSERT_EQ(r.one_rail_Bps, want);
      ASSERT_EQ(r.rails, 1);
    }
  EXPECT_EQ(inter, 24 * 16);
  EXPECT_EQ(rm.route(23, 0).src_nic, 0);                     // failed NIC 7 of node 2 -> NIC 0
  EXPECT_DOUBLE_EQ(rm.route(23, 0).bottleneck_Bps, 25e9);    // NIC 0 of node 2 at half
  EXPECT_DOUBLE_EQ(rm.route(10, 0).bottleneck_Bps, 12.5e9);  // NIC 2 of node 1 at a quarter
  EXPECT_DOUBLE_EQ(rm.route(3, 11).bottleneck_Bps, 50e9 / 1.5);
}

TEST(Route, AllNicsFailedIsInfeasible) {
  Scenario s = test::dgx_scenario(2, 2);
  s.cluster.faults.push_back({Fault::Kind::FailedNic, -1, 1.0, 1, 0, 1.0});
  s.cluster.faults.push_back({Fault::Kind::FailedNic, -1, 1.0, 1, 1, 1.0});
  const CostModel cm(s);
  const RouteModel rm(s, cm);
  EXPECT_NO_THROW(rm.route(0, 1));   // intra-node still fine
  try {
    rm.route(0, 2);
    FAIL() << "expected infeasible";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("node 1"), std::string::npos);
  }
}

TEST(Route, FaultOutsideClusterIsRejected) {
  Scenario s = test::dgx_scenario(2, 8);
  s.cluster.faults.push_back({Fault::Kind::DegradedNic, -1, 1.0, 4, 0, 0.5});
  const CostModel cm(s);
  EXPECT_THROW(RouteModel(s, cm), std::invalid_argument);
}

}  // namespace
}  // namespace hcpsim
