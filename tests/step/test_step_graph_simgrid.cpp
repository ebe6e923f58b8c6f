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
  return step_case_test_name(param_info.param);
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

// Known limit: interleaving on NICs that the whole stage shares and its transfers saturate. The
// composed step books the boundary's flows on the busiest link and queues each stage's sends and
// receives, which recovers most of the contention the graph shows (it is several times closer than
// with transfers timed alone) but not all: measured +2.2 % and +2.7 % (docs/planning.md); held
// here within 5 %.
class SharedNicLimit : public ::testing::TestWithParam<StepCase> {};

TEST_P(SharedNicLimit, ComposedWithinFivePercentAndFarCloserThanTransfersAlone) {
  const Scenario s = step_case_scenario(GetParam());
  BackendRegistry registry;
  sim::register_simgrid_backend(registry);
  const auto backend = registry.create("simgrid");
  const StepComparison c = compare_step(s, *backend);
  std::printf("simgrid  %-26s composed %.6f s (transfers alone %.6f s)  full graph %.6f s  %+.3f %%\n",
              GetParam().name.c_str(), c.composed_s, c.composed_alone_s, c.full_graph_s, 100 * c.difference());
  EXPECT_LT(std::abs(c.difference()), 0.05);
  EXPECT_LT(std::abs(c.full_graph_s - c.composed_s), 0.25 * std::abs(c.full_graph_s - c.composed_alone_s));
}

INSTANTIATE_TEST_SUITE_P(StepGraph, SharedNicLimit, ::testing::ValuesIn(shared_nic_limit_cases()), test_name);

}  // namespace
}  // namespace hcpsim::step::testing
