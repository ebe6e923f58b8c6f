// The `nccl_rails` term (docs/metrics.md section 9.7): which NICs NCCL spreads a call's inter-node
// traffic over, and the routes RouteModel gives point-to-point transfers and ring-collective hops.
#include "engine/cost/nccl_rails.h"

#include <gtest/gtest.h>

#include "engine/cost/route.h"
#include "tests/cost/test_scenario.h"

namespace hcpsim {
namespace {

Scenario rails_scenario(int nodes, int gpus, int nics, bool on = true) {
  Scenario s = test::dgx_scenario(nodes, gpus);
  s.cluster.nics_per_node = nics;
  s.cluster.efficiency.terms.nccl_rails = on;
  return s;
}

std::vector<std::int32_t> iota_ranks(int n) {
  std::vector<std::int32_t> r;
  for (int i = 0; i < n; ++i) r.push_back(i);
  return r;
}

TEST(NcclRails, LocalNicsSpreadEvenlyOverTheGpus) {
  EXPECT_EQ(local_nics(3, 8, 8), (std::vector<int>{3}));           // one NIC per GPU (DGX H100)
  EXPECT_EQ(local_nics(3, 16, 8), (std::vector<int>{3, 11}));      // two NICs per GPU
  EXPECT_EQ(local_nics(5, 4, 8), (std::vector<int>{1}));           // two GPUs share a NIC
  EXPECT_EQ(local_nics(6, 1, 8), (std::vector<int>{0}));
  EXPECT_EQ(local_nics(0, 12, 8), (std::vector<int>{0}));          // 12 / 8: one NIC each (floor)
}

TEST(NcclRails, RingRailsAreTheSmallerSideCappedByChannels) {
  EXPECT_EQ(ring_rails(4, 4, 8), 4);
  EXPECT_EQ(ring_rails(8, 4, 16), 4);
  EXPECT_EQ(ring_rails(8, 8, 2), 2);
  EXPECT_EQ(ring_rails(0, 4, 8), 1);
}

TEST(NcclRails, PointToPointUsesTheNicsLocalToBothGpus) {
  // One NIC per GPU: a send/recv pair has one rail, term on or off.
  {
    const Scenario s = rails_scenario(2, 8, 8);
    const CostModel cm(s);
    const Route r = RouteModel(s, cm).route(3, 11);
    EXPECT_EQ(r.rails, 1);
    EXPECT_DOUBLE_EQ(r.bottleneck_Bps, 50e9);
  }
  // Two NICs per GPU: NCCL round-robins the pair's channels over both.
  const Scenario s = rails_scenario(2, 8, 16);
  const CostModel cm(s);
  const RouteModel rm(s, cm);
  const Route r = rm.route(3, 11);
  EXPECT_EQ(r.rails, 2);
  EXPECT_DOUBLE_EQ(r.bottleneck_Bps, 100e9);
  EXPECT_DOUBLE_EQ(r.one_rail_Bps, 50e9);
  EXPECT_EQ(rm.p2p_nics(3), (std::vector<int>{3, 11}));
  const Scenario off = rails_scenario(2, 8, 16, false);
  const CostModel cm_off(off);
  const Route r_off = RouteModel(off, cm_off).route(3, 11);
  EXPECT_EQ(r_off.rails, 1);
  EXPECT_DOUBLE_EQ(r_off.bottleneck_Bps, 50e9);
}

TEST(NcclRails, RingHopAcrossNodesUsesEveryNicOfTheMembers) {
  const Scenario s = rails_scenario(2, 8, 4);   // 4 NICs per node, two GPUs per NIC
  const CostModel cm(s);
  const RouteModel rm(s, cm);
  const auto hops = rm.ring_hops(iota_ranks(16), 8);
  ASSERT_EQ(hops.size(), 16u);
  EXPECT_EQ(hops[7].rails, 4);                                 // 7 -> 8 leaves node 0
  EXPECT_DOUBLE_EQ(hops[7].bottleneck_Bps, 4 * 50e9);
  EXPECT_EQ(hops[15].rails, 4);                                // 15 -> 0 leaves node 1
  EXPECT_EQ(hops[3].link_class, LinkClass::IntraNode);         // NVSwitch hops are unchanged
  EXPECT_DOUBLE_EQ(hops[3].bottleneck_Bps, 450e9);
  // Channels cap the rails: a small call runs on fewer rings.
  EXPECT_DOUBLE_EQ(rm.ring_hops(iota_ranks(16), 2)[7].bottleneck_Bps, 2 * 50e9);
  EXPECT_DOUBLE_EQ(rm.ring_hops(iota_ranks(16), 1)[7].bottleneck_Bps, 50e9);
  // Term off: the hop runs over the NIC of its sending GPU alone.
  const Scenario off = rails_scenario(2, 8, 4, false);
  const CostModel cm_off(off);
  EXPECT_DOUBLE_EQ(RouteModel(off, cm_off).ring_hops(iota_ranks(16), 8)[7].bottleneck_Bps, 50e9);
}

TEST(NcclRails, HopsLeavingTheSameNodeShareItsRails) {
  // Ring 0 -> 8 -> 1 -> 9: two hops leave each node; the members' NICs are 0 and 1 on each side.
  const Scenario s = rails_scenario(2, 8, 4);
  const CostModel cm(s);
  const auto hops = RouteModel(s, cm).ring_hops({0, 8, 1, 9}, 8);
  for (const Route& h : hops) {
    EXPECT_EQ(h.rails, 2);
    EXPECT_DOUBLE_EQ(h.bottleneck_Bps, 2 * 50e9 / 2);
  }
}

TEST(NcclRails, DegradedRailLowersTheSum) {
  Scenario s = rails_scenario(2, 8, 4);
  Fault f;
  f.kind = Fault::Kind::DegradedNic;
  f.node = 0;
  f.nic = 1;
  f.bandwidth_factor = 0.5;
  s.cluster.faults = {f};
  const CostModel cm(s);
  const auto hops = RouteModel(s, cm).ring_hops(iota_ranks(16), 8);
  EXPECT_DOUBLE_EQ(hops[7].bottleneck_Bps, 3.5 * 50e9);   // node 0 sends over 3 healthy rails + a half one
  EXPECT_DOUBLE_EQ(hops[15].bottleneck_Bps, 3.5 * 50e9);  // and receives over them
}

}  // namespace
}  // namespace hcpsim
