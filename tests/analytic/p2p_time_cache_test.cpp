// P2pTimeCache answers, bit for bit, what RouteModel::p2p_transfer_seconds answers, whether the key
// is new, remembered or pushed out by more distinct keys than an op keeps.
#include "engine/analytic/p2p_time_cache.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "tests/cost/test_scenario.h"

namespace hcpsim {
namespace {

TEST(P2pTimeCache, EqualsTheRouteModelOnEveryQuestion) {
  for (const bool channels_term : {false, true}) {
    Scenario s = test::dgx_scenario(4, 8);
    s.cluster.efficiency.terms.nccl_p2p_channels = channels_term;
    s.cluster.efficiency.terms.bandwidth_curves = channels_term;
    s.cluster.faults.push_back({Fault::Kind::DegradedNic, -1, 1.0, 2, 3, 0.5});   // a third bottleneck
    const CostModel cost(s);
    const RouteModel routes(s, cost);
    // Three ops with different communicators (members, nodes).
    const std::vector<NcclP2pComm> comms = {{2, 1, 18}, {8, 1, 18}, {32, 4, 18}};
    P2pTimeCache cache(routes, comms.size());
    std::mt19937_64 rng(channels_term ? 5 : 6);
    // Few sizes (many hits), and sometimes one of many (more distinct keys than an op keeps).
    const std::vector<double> sizes = {0.0, 1024.0, 4.0 * 1024 * 1024, 64.0 * 1024 * 1024};
    std::size_t hits_possible = 0, self = 0;
    std::vector<std::vector<double>> seen(comms.size());
    for (int i = 0; i < 20000; ++i) {
      const auto op = static_cast<std::uint32_t>(rng() % comms.size());
      const int src = static_cast<int>(rng() % 32), dst = static_cast<int>(rng() % 32);
      const double bytes = rng() % 10 == 0 ? static_cast<double>(1 + rng() % 100000) : sizes[rng() % sizes.size()];
      const Route r = routes.route(src, dst);
      const double want = routes.p2p_transfer_seconds(r, bytes, comms[op]);
      ASSERT_EQ(cache.seconds(op, r, bytes, comms[op]), want)
          << "op " << op << " " << src << " -> " << dst << " bytes " << bytes;
      self += r.self;
      hits_possible += i > 100;
    }
    EXPECT_GT(self, 0u);
    EXPECT_GT(hits_possible, 0u);
    // The term changes the answer, so the cache must have passed the communicator through.
    const Route inter = routes.route(0, 8);
    if (channels_term) {
      EXPECT_NE(routes.p2p_transfer_seconds(inter, 64.0 * 1024 * 1024, comms[0]),
                routes.p2p_transfer_seconds(inter, 64.0 * 1024 * 1024, comms[2]));
    }
  }
}

TEST(P2pTimeCache, KeepsOpsApart) {
  Scenario s = test::dgx_scenario(2, 8);
  s.cluster.efficiency.terms.nccl_p2p_channels = true;
  const CostModel cost(s);
  const RouteModel routes(s, cost);
  const NcclP2pComm small{2, 1, 18}, wide{16, 2, 18};
  P2pTimeCache cache(routes, 2);
  const Route r = routes.route(0, 1);
  const double m = 256.0 * 1024 * 1024;
  const double a = cache.seconds(0, r, m, small);
  const double b = cache.seconds(1, r, m, wide);   // same route and bytes, another op
  EXPECT_EQ(a, routes.p2p_transfer_seconds(r, m, small));
  EXPECT_EQ(b, routes.p2p_transfer_seconds(r, m, wide));
  EXPECT_EQ(cache.seconds(0, r, m, small), a);
}

}  // namespace
}  // namespace hcpsim
