// PlatformSpec numbers and explain_route output for healthy clusters.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/simgrid_backend.h"
#include "sim_test_util.h"

namespace hcpsim::sim::testing {
namespace {

TEST(PlatformSpec, RailOptimizedNicChoiceAndUplinkCapacity) {
  ClusterConfig c = cluster(3, 8, 2);
  c.oversubscription = 4;
  const PlatformSpec p = make_platform_spec(c);
  ASSERT_EQ(p.nic_of_rank.size(), 24u);
  for (int r = 0; r < 24; ++r) EXPECT_EQ(p.nic_of_rank[static_cast<std::size_t>(r)], (r % 8) % 2);
  EXPECT_DOUBLE_EQ(p.uplink_Bps, 2 * kNic_Bps / 4);
  EXPECT_DOUBLE_EQ(2 * p.nic_latency_s + p.uplink_latency_s * 2, kInterLat_s);
  EXPECT_DOUBLE_EQ(2 * p.nvlink_latency_s, kIntraLat_s);
}

TEST(PlatformSpec, RejectsImpossibleClusters) {
  ClusterConfig c = cluster(2, 8, 0);
  EXPECT_THROW(make_platform_spec(c), std::invalid_argument);
  c = cluster(2, 8, 8);
  c.oversubscription = 0.5;
  EXPECT_THROW(make_platform_spec(c), std::invalid_argument);
}

TEST(ExplainRoute, IntraNodeRouteCrossesTwoNvlinkPorts) {
  Scenario s;
  s.cluster = cluster(2, 8, 8);
  const std::string r = explain_route(s, 1, 6);
  EXPECT_NE(r.find("n0g1"), std::string::npos) << r;
  EXPECT_NE(r.find("nvl-n0g1_UP"), std::string::npos) << r;
  EXPECT_NE(r.find("nvl-n0g6_DOWN"), std::string::npos) << r;
  EXPECT_NE(r.find("2 links, latency 2.000 us, bottleneck 100.000 GB/s"), std::string::npos) << r;
}

TEST(ExplainRoute, InterNodeRouteUsesTheRailNicsAndUplinks) {
  Scenario s;
  s.cluster = cluster(2, 8, 4);
  const std::string r = explain_route(s, 5, 14);   // n0g5 (NIC 1) -> n1g6 (NIC 2)
  const auto p1 = r.find("nic-n0-1_UP"), p2 = r.find("uplink-n0_UP"), p3 = r.find("uplink-n1_DOWN"),
             p4 = r.find("nic-n1-2_DOWN");
  ASSERT_NE(p1, std::string::npos) << r;
  ASSERT_NE(p4, std::string::npos) << r;
  EXPECT_LT(p1, p2);
  EXPECT_LT(p2, p3);
  EXPECT_LT(p3, p4);
  EXPECT_NE(r.find("4 links, latency 4.000 us, bottleneck 10.000 GB/s"), std::string::npos) << r;
}

TEST(ExplainRoute, BadRankIsAClearError) {
  Scenario s;
  s.cluster = cluster(1, 8, 8);
  EXPECT_THROW(explain_route(s, 0, 8), std::invalid_argument);
  EXPECT_THROW(explain_route(s, -1, 0), std::invalid_argument);
}

}  // namespace
}  // namespace hcpsim::sim::testing
