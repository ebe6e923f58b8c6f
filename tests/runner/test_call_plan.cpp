// The call-plan check (kernels/call_plan.h): every example scenario's plan is consistent, and
// deliberately broken plans are caught with a message naming the ranks and the calls.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/layout/rank_layout.h"
#include "engine/scenario/loader.h"
#include "engine/schedule/build.h"
#include "engine/validate/validate.h"
#include "kernels/call_plan.h"

namespace hcpsim {
namespace {

using kernels::build_call_plan;
using kernels::check_call_plan;

struct Built {
  Scenario s;
  RankLayout layout;
  TaskGraph g;
};

Built build(const std::string& path, const std::vector<std::string>& overrides = {}) {
  LoadOptions lo;
  lo.overrides = overrides;
  Scenario s = load_scenario_file(path, lo);
  RankLayout layout = RankLayout::from_scenario(s);
  TaskGraph g = build_task_graph(s, layout, graph_options_from(s));
  return {std::move(s), std::move(layout), std::move(g)};
}

bool mentions(const std::vector<std::string>& problems, const std::string& what) {
  return std::any_of(problems.begin(), problems.end(), [&](const std::string& p) { return p.find(what) != std::string::npos; });
}

TEST(CallPlan, EveryExampleScenarioIsConsistent) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(HCPSIM_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().string());
    const Built b = build(entry.path().string());
    ASSERT_FALSE(validate(b.s).has_errors());
    const auto plan = build_call_plan(b.g);
    ASSERT_EQ(plan.by_rank.size(), static_cast<std::size_t>(b.g.world_size));
    std::size_t calls = 0;
    for (const auto& r : plan.by_rank) calls += r.size();
    EXPECT_GT(calls, 0u);   // every example communicates
    const auto problems = check_call_plan(b.g, b.layout, plan);
    EXPECT_TRUE(problems.empty()) << problems.front();
    ++checked;
  }
  EXPECT_GE(checked, 10);   // the shipped examples, not an empty folder
}

TEST(CallPlan, ModesOfTheCpuRunnerTestsAreConsistent) {
  const std::string small = std::string(HCPSIM_SOURCE_DIR) + "/tests/runner/cpu-small.yaml";
  for (const char* mode : {"p2p", "a2a", "all_gather"}) {
    SCOPED_TRACE(mode);
    const Built b = build(small, {std::string("model.cp_comm_type=") + mode});
    EXPECT_TRUE(check_call_plan(b.g, b.layout, build_call_plan(b.g)).empty());
  }
  const Built h = build(small, {"model.cp_comm_type=a2a+p2p", "model.hierarchical_context_parallel_sizes=[2,2]"});
  EXPECT_TRUE(check_call_plan(h.g, h.layout, build_call_plan(h.g)).empty());
}

TEST(CallPlan, CollectivesInADifferentOrderOnOneRankAreCaught) {
  const Built b = build(std::string(HCPSIM_SOURCE_DIR) + "/tests/runner/cpu-small.yaml",
                        {"model.cp_comm_type=a2a"});
  auto plan = build_call_plan(b.g);
  auto& r1 = plan.by_rank.at(1);
  ASSERT_GE(r1.size(), 2u);
  std::swap(r1[0], r1[1]);   // rank 1 calls its first two all-to-alls the other way round
  const auto problems = check_call_plan(b.g, b.layout, plan);
  ASSERT_FALSE(problems.empty());
  EXPECT_TRUE(mentions(problems, "on rank 1")) << problems.front();
  EXPECT_TRUE(mentions(problems, "collective 1")) << problems.front();
}

TEST(CallPlan, ASendWithoutItsReceiveIsCaught) {
  const Built b = build(std::string(HCPSIM_SOURCE_DIR) + "/tests/runner/cpu-small.yaml");
  auto plan = build_call_plan(b.g);
  auto& r2 = plan.by_rank.at(2);
  const auto it = std::find_if(r2.begin(), r2.end(), [](const kernels::PlannedCall& c) { return !c.receives_from.empty(); });
  ASSERT_NE(it, r2.end());
  const int src = it->receives_from.front();
  it->receives_from.clear();   // rank 2 forgets one receive
  const auto problems = check_call_plan(b.g, b.layout, plan);
  ASSERT_FALSE(problems.empty());
  EXPECT_TRUE(mentions(problems, "rank " + std::to_string(src) + " -> rank 2")) << problems.front();
}

TEST(CallPlan, PointToPointCallsOutOfOrderAreCaught) {
  const Built b = build(std::string(HCPSIM_SOURCE_DIR) + "/tests/runner/cpu-small.yaml");
  auto plan = build_call_plan(b.g);
  auto& r0 = plan.by_rank.at(0);
  ASSERT_GE(r0.size(), 2u);
  ASSERT_EQ(r0[0].kind, TaskKind::SendRecv);
  ASSERT_EQ(r0[1].kind, TaskKind::SendRecv);
  std::swap(r0[0], r0[1]);   // rank 0 sends ring step 1 before ring step 0
  const auto problems = check_call_plan(b.g, b.layout, plan);
  ASSERT_FALSE(problems.empty());
  EXPECT_TRUE(mentions(problems, "send 1 is call")) << problems.front();
}

TEST(CallPlan, ACollectiveWhoseMembersAreNotItsGroupIsCaught) {
  Built b = build(std::string(HCPSIM_SOURCE_DIR) + "/tests/runner/cpu-small.yaml", {"model.cp_comm_type=a2a"});
  const auto plan = build_call_plan(b.g);
  ASSERT_TRUE(check_call_plan(b.g, b.layout, plan).empty());
  const std::uint32_t op = plan.by_rank.at(0).front().op;
  auto& ranks = b.g.comm(op).ranks;
  ASSERT_GE(ranks.size(), 2u);
  std::swap(ranks[0], ranks[1]);   // member slots no longer follow the communicator's ranks
  const auto problems = check_call_plan(b.g, b.layout, plan);
  EXPECT_TRUE(mentions(problems, "group order")) << (problems.empty() ? "no problem found" : problems.front());
}

}  // namespace
}  // namespace hcpsim
