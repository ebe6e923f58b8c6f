// Folding on the SimGrid backend (link sharing modelled): a folded run reports what the unfolded
// run of the same job reports, including jobs whose units hold groups that share NICs and uplinks,
// and the job where sharing chains through every node (not folded, same numbers as fold: off).
#include <gtest/gtest.h>

#include <memory>
#include <tuple>

#include "engine/backend/backend.h"
#include "sim/simgrid_backend.h"
#include "tests/fold/fold_test_util.h"

namespace hcpsim {
namespace {

using test::fold_job;

std::unique_ptr<Backend> simgrid() {
  BackendRegistry reg;
  sim::register_simgrid_backend(reg);
  return reg.create("simgrid");
}

class FoldedEqualsUnfoldedSimgrid : public ::testing::TestWithParam<std::tuple<int, int, int, int>> {};

TEST_P(FoldedEqualsUnfoldedSimgrid, SameReport) {
  const auto [nodes, tp, cp, pp] = GetParam();
  auto backend = simgrid();
  const auto r = test::run_both(fold_job(nodes, tp, cp, pp, "simgrid"), *backend);
  ASSERT_TRUE(r.folded.report.fold && r.folded.report.fold->folded) << r.folded.report.fold->note;
  EXPECT_LT(r.folded.report.world_size, r.unfolded.report.world_size);
  test::expect_same_report(r.folded.report, r.unfolded.report);
}

INSTANTIATE_TEST_SUITE_P(Jobs, FoldedEqualsUnfoldedSimgrid,
                         ::testing::Values(std::make_tuple(8, 2, 8, 2),    // 2-node unit, pp 2, dp 2
                                           std::make_tuple(6, 2, 6, 1),    // units of 2 groups sharing node links
                                           std::make_tuple(4, 1, 4, 2)));  // 2 groups per node, intra-node only

TEST(FoldedEqualsUnfoldedSimgrid, SharedLinksThroughTheWholeJobAreNotFolded) {
  auto backend = simgrid();
  const auto r = test::run_both(fold_job(3, 2, 6, 1, "simgrid"), *backend);
  ASSERT_TRUE(r.folded.report.fold.has_value());
  EXPECT_FALSE(r.folded.report.fold->folded);
  EXPECT_NE(r.folded.report.fold->note.find("node 1"), std::string::npos) << r.folded.report.fold->note;
  EXPECT_EQ(r.folded.report.world_size, 24);
  test::expect_same_report(r.folded.report, r.unfolded.report);
}

}  // namespace
}  // namespace hcpsim
