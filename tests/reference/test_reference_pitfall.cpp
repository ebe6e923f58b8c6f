// The silent-disable pitfall (docs/schedules.md): a2a+p2p without hierarchical sizes silently runs local attention on every rank. The same
// check that proves the real schedules exact must call that graph wrong, by a large margin.
#include <gtest/gtest.h>

#include "engine/layout/rank_layout.h"
#include "engine/reference/verify.h"
#include "engine/schedule/build.h"
#include "tests/graph/scenario_fixture.h"

namespace hcpsim {
namespace {

TEST(ReferencePitfall, SilentDisableIsReportedWrongWithItsErrorSize) {
  testing::Config k;
  k.cp = 4;
  k.types = {CpCommType::A2AP2P};
  k.heads = k.kv_heads = 4;
  reference::VerifyOptions o;
  o.silent_disable_pitfall = true;
  const auto r = reference::verify_scenario(testing::make_scenario(k), o);
  EXPECT_FALSE(r.ok);
  EXPECT_GT(r.out, 1e-2);
  EXPECT_GT(r.dq, 1e-2);
  EXPECT_GT(r.dk, 1e-2);
}

TEST(ReferencePitfall, PitfallGraphHasNoCommunication) {
  testing::Config k;
  k.cp = 4;
  k.types = {CpCommType::A2AP2P};
  const Scenario s = testing::make_scenario(k);
  GraphOptions o;
  o.silent_disable_pitfall = true;
  const TaskGraph g = build_task_graph(s, RankLayout::from_scenario(s), o);
  for (const Task& t : g.tasks()) EXPECT_FALSE(is_communication(t.kind));
  EXPECT_TRUE(g.comms().empty());
}

TEST(ReferencePitfall, A2AP2PWithoutSizesIsRefusedByTheBuilder) {
  testing::Config k;
  k.cp = 4;
  k.types = {CpCommType::A2AP2P};
  const Scenario s = testing::make_scenario(k);
  EXPECT_THROW(build_task_graph(s, RankLayout::from_scenario(s), GraphOptions{}), std::invalid_argument);
}

}  // namespace
}  // namespace hcpsim
