// The comparison behind `run --device cpu --check` (reference::compare_with_dense): exact results
// pass, and one wrong gradient value on one rank fails it.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "engine/layout/rank_layout.h"
#include "engine/reference/executor.h"
#include "engine/reference/verify.h"
#include "engine/scenario/loader.h"
#include "engine/schedule/build.h"

namespace hcpsim {
namespace {

TEST(CheckCompare, ExactResultsPassAndOneWrongValueFails) {
  LoadOptions lo;
  lo.overrides = {"model.cp_comm_type=a2a+p2p", "model.hierarchical_context_parallel_sizes=[2,2]"};
  const Scenario s = load_scenario_file(std::string(HCPSIM_SOURCE_DIR) + "/tests/runner/cpu-small.yaml", lo);
  const RankLayout layout = RankLayout::from_scenario(s);
  GraphOptions go = graph_options_from(s);
  go.with_payloads = true;
  const TaskGraph g = build_task_graph(s, layout, go);
  reference::ExecOptions eo;
  auto ex = reference::execute_reference(g, s, layout, eo);
  const auto good = reference::compare_with_dense(s, layout, g.layers, eo.seed, 1e-4, ex.results);
  EXPECT_TRUE(good.ok) << good.detail;
  EXPECT_LT(std::max({good.out, good.dq, good.dk, good.dv}), 1e-12);

  auto& dk = ex.results.at(1).at(0).dk;
  ASSERT_FALSE(dk.v.empty());
  dk.v[dk.v.size() / 2] += 0.5;
  const auto bad = reference::compare_with_dense(s, layout, g.layers, eo.seed, 1e-4, ex.results);
  EXPECT_FALSE(bad.ok);
  EXPECT_GT(bad.dk, 1e-4);
  EXPECT_LT(bad.out, 1e-12);   // only dK was touched

  dk.v[dk.v.size() / 2] -= 0.5;   // a NaN (a broken GPU kernel's typical output) fails too
  ex.results.at(3).at(0).dq.v[1] = std::numeric_limits<double>::quiet_NaN();
  const auto nan = reference::compare_with_dense(s, layout, g.layers, eo.seed, 1e-4, ex.results);
  EXPECT_FALSE(nan.ok);
  EXPECT_TRUE(std::isinf(nan.dq)) << nan.dq;
  EXPECT_LT(nan.dk, 1e-12);

  ex.results.at(2).erase(0);   // a rank without results is reported, not skipped
  const auto missing = reference::compare_with_dense(s, layout, g.layers, eo.seed, 1e-4, ex.results);
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.detail.find("rank 2"), std::string::npos) << missing.detail;
}

}  // namespace
}  // namespace hcpsim
