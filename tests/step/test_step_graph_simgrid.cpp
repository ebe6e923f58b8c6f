// The composed step against the whole-step task graph on the SimGrid backend (built only with
// SimGrid). The composed step takes its layer times from SimGrid and times P2P transfers and DP
// collectives alone on their routes; the graph runs everything at once on the shared links.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/simgrid_backend.h"
#include "tests/step/step_graph_cases.h"

namespace hcpsim::step::testing {
namespace {

std::string test_name(const ::testing::TestParamInfo<StepCase>& param_info) {
  std::string n = param_info.param.name;
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

class ComposedVsFullGraphSimgrid : public ::testing::TestWithParam<StepCase> {};

TEST_P(ComposedVsFullGraphSimgrid, WithinOnePercent) {
  const Scenario s = step_case_scenario(GetParam());
  BackendRegistry registry;
  sim::register_simgrid_backend(registry);
  const auto backend = registry.create("simgrid");
  const StepComparison c = compare_step(s, *backend);
  std::printf("simgrid  %-26s composed %.6f s  full graph %.6f s  (%zu tasks)  %+.3f %%\n", GetParam().name.c_str(),
              c.composed_s, c.full_graph_s, c.full_graph_tasks, 100 * c.difference());
  EXPECT_LT(std::abs(c.difference()), 0.01);
}

INSTANTIATE_TEST_SUITE_P(StepGraph, ComposedVsFullGraphSimgrid, ::testing::ValuesIn(step_cases()), test_name);

// Known limit: NICs shared by a whole stage and saturated by its transfers. The composed step books
// the boundary's flows on the busiest link and queues each stage's sends and receives, which
// recovers part of the contention the graph shows, but stays below it (fair sharing delays the
// critical transfer more than a queue). Measured differences: docs/planning.md.
class SharedNicLimit : public ::testing::TestWithParam<StepCase> {};

TEST_P(SharedNicLimit, ComposedIsBelowTheGraphButCloserThanTransfersAlone) {
  const Scenario s = step_case_scenario(GetParam());
  BackendRegistry registry;
  sim::register_simgrid_backend(registry);
  const auto backend = registry.create("simgrid");
  const StepComparison c = compare_step(s, *backend);
  std::printf("simgrid  %-26s composed %.6f s (transfers alone %.6f s)  full graph %.6f s  %+.3f %%\n",
              GetParam().name.c_str(), c.composed_s, c.composed_alone_s, c.full_graph_s, 100 * c.difference());
  EXPECT_LT(c.composed_s, c.full_graph_s);
  EXPECT_GT(c.composed_s, c.composed_alone_s);
  EXPECT_LT(c.full_graph_s - c.composed_s, 0.5 * (c.full_graph_s - c.composed_alone_s));
}

INSTANTIATE_TEST_SUITE_P(StepGraph, SharedNicLimit, ::testing::ValuesIn(shared_nic_limit_cases()), test_name);

}  // namespace
}  // namespace hcpsim::step::testing
