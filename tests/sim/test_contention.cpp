// Contention the analytic backend cannot see. Each expected time is derived here from the platform
// (bandwidths of the test cluster) and max-min sharing, never copied from a run.
#include <gtest/gtest.h>

#include "sim_test_util.h"

namespace hcpsim::sim::testing {
namespace {

#define EXPECT_TIME(a, b) EXPECT_NEAR((a), (b), 1e-9 * (b))

// Eight concurrent cross-node transfers g_i(node 0) -> g_i(node 1) of B bytes each.
TaskGraph eight_rails(double B) {
  TaskGraph g;
  for (int i = 0; i < 8; ++i) sendrecv(g, {i, 8 + i}, {{i, 8 + i, B}});
  return g;
}

TEST(SimContention, RingsSharingOneNicAreSlowedByTheSharingFactor) {
  const double B = 1e8;
  const TaskGraph g = eight_rails(B);
  const double alone = simulate(g, cluster(2, 8, 8)).run.makespan_s;
  EXPECT_TIME(alone, kInterLat_s + B / kNic_Bps);   // one rail each: no sharing
  for (int nics : {4, 2, 1}) {
    const int sharing = 8 / nics;   // GPU i uses NIC i mod nics: 8/nics flows per NIC
    const auto r = simulate(g, cluster(2, 8, nics));
    EXPECT_TIME(r.run.makespan_s, kInterLat_s + sharing * B / kNic_Bps) << nics << " NICs";
    // the bandwidth term grows by exactly the sharing factor
    EXPECT_NEAR((r.run.makespan_s - kInterLat_s) / (alone - kInterLat_s), sharing, 1e-6);
  }
}

TEST(SimContention, OversubscribedFabricGivesTheMaxMinShare) {
  const double B = 1e8;
  const TaskGraph g = eight_rails(B);
  for (double over : {1.0, 2.0, 4.0, 8.0}) {
    ClusterConfig c = cluster(2, 8, 8);
    c.oversubscription = over;
    const double uplink = 8 * kNic_Bps / over;        // per node, per direction
    const double share = std::min(kNic_Bps, uplink / 8);   // 8 equal flows on the uplink
    EXPECT_TIME(simulate(g, c).run.makespan_s, kInterLat_s + B / share) << "oversubscription " << over;
  }
}

TEST(SimContention, OversubscriptionDoesNotSlowAFabricThatIsNotFull) {
  // Two flows only: the 4:1 uplink (2 NICs' worth) still carries both at full NIC speed.
  TaskGraph g;
  const double B = 1e8;
  sendrecv(g, {0, 8}, {{0, 8, B}});
  sendrecv(g, {1, 9}, {{1, 9, B}});
  ClusterConfig c = cluster(2, 8, 8);
  c.oversubscription = 4;
  EXPECT_TIME(simulate(g, c).run.makespan_s, kInterLat_s + B / kNic_Bps);
}

TEST(SimContention, AllToAllAndRingShareANicByMaxMin) {
  // One NIC per node. A ring transfer n0g0 -> n1g0 (B bytes) and a 2-member a2a {n0g0, n1g1} with
  // T = B per rank (a piece of B/2 each way) start together. On nic-n0-0 UP the ring flow and the
  // a2a piece share 50/50 until the piece ends at lat + (B/2)/(nic/2); the ring flow then has B/2
  // left at full speed. The a2a's reverse piece is alone on its links.
  TaskGraph g;
  const double B = 1e8;
  auto ring = sendrecv(g, {0, 8}, {{0, 8, B}});
  auto a2a = collective(g, TaskKind::AllToAll, {0, 9}, B);
  const auto r = simulate(g, cluster(2, 8, 1));
  const double piece_end = kInterLat_s + (B / 2) / (kNic_Bps / 2);
  EXPECT_TIME(r.end_s[a2a[0]], piece_end);
  EXPECT_TIME(r.end_s[a2a[1]], piece_end);
  EXPECT_TIME(r.end_s[ring[0]], piece_end + (B / 2) / kNic_Bps);
  // analytic (no sharing) would give lat + B/nic for the ring and lat + (B/2)/nic for the a2a
  EXPECT_GT(r.end_s[ring[0]], kInterLat_s + B / kNic_Bps * 1.4);
}

TEST(SimContention, IncastOnOneNvlinkPortSharesItsBandwidth) {
  TaskGraph g;
  const double B = 1e8;
  for (int s = 1; s <= 4; ++s) sendrecv(g, {s, 0}, {{s, 0, B}});
  EXPECT_TIME(simulate(g, cluster(1, 8, 8)).run.makespan_s, kIntraLat_s + 4 * B / kNvl_Bps);
}

}  // namespace
}  // namespace hcpsim::sim::testing
