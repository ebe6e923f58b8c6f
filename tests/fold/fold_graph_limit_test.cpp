// The task-graph size limit counts the graph that is built: one fold unit for a job of identical
// replicas, every rank otherwise (engine/validate/feasibility.h).
#include <gtest/gtest.h>

#include <string>

#include "engine/analytic/analytic_backend.h"
#include "engine/app/simulate.h"
#include "engine/fold/fold_plan.h"
#include "engine/validate/feasibility.h"
#include "engine/validate/validate.h"
#include "tests/fold/fold_test_util.h"

namespace hcpsim {
namespace {

// 32,768 GPUs, tp 8 x cp 16 (128-GPU TP x CP groups, 16 nodes each), 256 data-parallel replicas, 8
// layers forward and backward: about 70 M tasks whole, 0.27 M for one fold unit.
Scenario large_job() {
  Scenario s = test::fold_job(4096, 8, 16, 1, "analytic");
  s.simulation.layers = 8;
  return s;
}

std::string errors_of(const Diagnostics& d) {
  std::string all;
  for (const Diagnostic& x : d.items())
    if (x.severity == Severity::Error) all += x.path + ": " + x.message + "\n";
  return all;
}

TEST(FoldGraphLimit, JobOverTheLimitWholeIsAcceptedWhenItsFoldUnitFits) {
  const Scenario s = large_job();
  ASSERT_GT(estimated_graph_tasks(s), kMaxGraphTasks);   // the whole job alone would be refused
  const FoldPlan fold = plan_fold(s);
  ASSERT_TRUE(fold.folded) << fold.note;
  EXPECT_EQ(fold.simulated_ranks, 128);
  EXPECT_LT(estimated_graph_tasks(fold.simulated), 1e6);
  const Diagnostics d = validate(s);
  EXPECT_FALSE(d.has_errors()) << errors_of(d);
}

TEST(FoldGraphLimit, TheSameJobUnfoldedIsRefusedAtTheField) {
  Scenario s = large_job();
  s.simulation.fold = FoldMode::Off;
  const std::string errors = errors_of(validate(s));
  EXPECT_NE(errors.find("simulation.layers: the task graph would have about 7"), std::string::npos) << errors;
  EXPECT_NE(errors.find("simulation.fold is off"), std::string::npos) << errors;
}

TEST(FoldGraphLimit, ARunThatMustBuildEveryRankIsRefusedBeforeBuilding) {
  const Scenario s = large_job();
  AnalyticBackend backend;
  SimulateOptions all;
  all.keep_events = false;
  all.replicas_once = false;
  all.unfold_reason = "a trace of every rank is written from the whole graph";
  try {
    (void)simulate_scenario(s, backend, all);
    FAIL() << "simulate_scenario built a graph over the limit";
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("more than hcpsim's limit"), std::string::npos) << m;
    EXPECT_NE(m.find("with all 32768 GPUs"), std::string::npos) << m;
    EXPECT_NE(m.find("a trace of every rank is written from the whole graph; keep the run folded instead"),
              std::string::npos)
        << m;
  }
  EXPECT_THROW(require_buildable_graph(s, "why"), std::invalid_argument);
  EXPECT_NO_THROW(require_buildable_graph(plan_fold(s).simulated, "why"));
}

TEST(FoldGraphLimit, TheFoldedRunReportsTheWholeJob) {
  const Scenario s = large_job();
  AnalyticBackend backend;
  SimulateOptions folded;
  folded.keep_events = false;
  const SimulationResult r = simulate_scenario(s, backend, folded);
  EXPECT_EQ(r.report.cluster_world_size, 32768);   // the job; world_size is the simulated unit
  EXPECT_EQ(r.report.world_size, 128);
  EXPECT_LT(r.tasks, 1000000u);
  EXPECT_GT(r.report.layer_forward_s, 0.0);
}

}  // namespace
}  // namespace hcpsim
