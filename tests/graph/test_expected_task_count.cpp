// expected_task_count: the builder's capacity hint equals the number of tasks it builds for the
// schedules it knows in closed form (so a million-task graph is reserved once, not grown by
// doubling), and is 0 (no hint) where it does not know.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "engine/layout/rank_layout.h"
#include "engine/schedule/build.h"
#include "tests/graph/scenario_fixture.h"

namespace hcpsim {
namespace {

struct Counted {
  std::size_t expected = 0, built = 0;
};

Counted count(const testing::Config& c, GraphOptions o) {
  const Scenario s = testing::make_scenario(c);
  const RankLayout layout = RankLayout::from_scenario(s);
  return {expected_task_count(s, layout, o), build_task_graph(s, layout, o).size()};
}

testing::Config config(int cp, std::vector<CpCommType> types, std::vector<int> hcp = {}) {
  testing::Config c;
  c.cp = cp;
  c.types = std::move(types);
  c.hcp = std::move(hcp);
  return c;
}

GraphOptions passes(bool forward, bool backward, int layers) {
  GraphOptions o;
  o.forward = forward;
  o.backward = backward;
  o.layers = layers;
  return o;
}

TEST(ExpectedTaskCount, EqualsTheBuiltGraphForRingAndA2ASchedules) {
  struct Case {
    const char* what;
    testing::Config config;
  };
  testing::Config p2p_tp2 = config(3, {CpCommType::P2P});
  p2p_tp2.tp = 2;
  testing::Config no_mask = config(4, {CpCommType::P2P});
  no_mask.causal = false;
  testing::Config per_layer = config(4, {CpCommType::P2P, CpCommType::A2A});
  per_layer.layers = 2;
  const Case cases[] = {
      {"p2p cp=4", config(4, {CpCommType::P2P})},
      {"p2p cp=3 tp=2", p2p_tp2},
      {"a2a cp=4", config(4, {CpCommType::A2A})},
      {"a2a+p2p [2,4]", config(8, {CpCommType::A2AP2P}, {2, 4})},
      {"a2a+p2p [1,4]", config(4, {CpCommType::A2AP2P}, {1, 4})},
      {"a2a+p2p [4,1]", config(4, {CpCommType::A2AP2P}, {4, 1})},
      {"no mask p2p", no_mask},
      {"per-layer p2p then a2a", per_layer},
  };
  for (const Case& c : cases)
    for (const GraphOptions& o : {passes(true, true, 2), passes(true, false, 3), passes(false, true, 1)}) {
      SCOPED_TRACE(std::string(c.what) + ", layers " + std::to_string(o.layers) + (o.forward ? " fwd" : "") +
                   (o.backward ? " bwd" : ""));
      const Counted k = count(c.config, o);
      EXPECT_GT(k.built, 0u);
      EXPECT_EQ(k.expected, k.built);
    }
}

TEST(ExpectedTaskCount, IsZeroWhereTheScheduleHasNoClosedForm) {
  auto expected = [](const testing::Config& c, const GraphOptions& o) {
    const Scenario s = testing::make_scenario(c);
    return expected_task_count(s, RankLayout::from_scenario(s), o);
  };
  const GraphOptions both = passes(true, true, 1);
  EXPECT_GT(expected(config(4, {CpCommType::P2P}), both), 0u);
  // all_gather and DistFlashAttn are not counted; whole layers add operations around attention.
  EXPECT_EQ(expected(config(4, {CpCommType::AllGather}), both), 0u);
  EXPECT_EQ(expected(config(4, {CpCommType::DistFlashAttn}), both), 0u);
  EXPECT_EQ(expected(config(4, {CpCommType::P2P, CpCommType::AllGather}), passes(true, true, 2)), 0u);
  GraphOptions whole = both;
  whole.whole_layer = true;
  EXPECT_EQ(expected(config(4, {CpCommType::P2P}), whole), 0u);
  // cp = 1: every rank attends locally.
  EXPECT_EQ(expected(config(1, {CpCommType::P2P}), both), 0u);
}

}  // namespace
}  // namespace hcpsim
