// Folding on the analytic backend: the plan (which jobs fold, into what unit, and why not), and a
// folded run against the unfolded run of the same job, report and trace.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <tuple>
#include <vector>

#include <unistd.h>

#include "engine/analytic/analytic_backend.h"
#include "engine/app/simulate.h"
#include "engine/fold/fold_plan.h"
#include "engine/scenario/loader.h"
#include "engine/trace/trace.h"
#include "tests/fold/fold_test_util.h"

namespace hcpsim {
namespace {

using test::fold_job;

TEST(FoldPlan, PipelineStagesAndReplicasOnOtherNodesFoldIntoOneGroup) {
  const FoldPlan p = plan_fold(fold_job(8, 2, 8, 2, "analytic"));   // tp x cp = 16 GPUs = 2 nodes; dp 2
  ASSERT_TRUE(p.folded) << p.note;
  EXPECT_EQ(p.unit_nodes, 2);
  EXPECT_EQ(p.simulated_ranks, 16);
  EXPECT_EQ(p.represented_ranks, 64);
  EXPECT_EQ(p.replicas, 4);
  EXPECT_EQ(p.groups_per_unit, 1);
  EXPECT_FALSE(p.links_shared);
  EXPECT_EQ(p.simulated.pp(), 1);
  EXPECT_EQ(p.simulated.world_size(), 16);
  EXPECT_EQ(p.simulated_rank_of(37), 5);
  EXPECT_EQ(p.replica_of(37), 2);
}

TEST(FoldPlan, GroupsSharingANodesLinksAreSimulatedTogether) {
  // tp 2 x cp 6 = 12 ranks on 8-GPU nodes: groups 0 (ranks 0-11) and 1 (12-23) both cross node 1.
  const FoldPlan p = plan_fold(fold_job(6, 2, 6, 1, "analytic"));
  ASSERT_TRUE(p.folded) << p.note;
  EXPECT_TRUE(p.links_shared);
  EXPECT_EQ(p.unit_nodes, 3);
  EXPECT_EQ(p.groups_per_unit, 2);
  EXPECT_EQ(p.replicas, 2);
  EXPECT_NE(p.note.find("node 1"), std::string::npos) << p.note;
}

TEST(FoldPlan, RefusedWhenSharedLinksChainThroughTheWholeJob) {
  const FoldPlan p = plan_fold(fold_job(3, 2, 6, 1, "analytic"));   // the one unit is the job
  EXPECT_FALSE(p.folded);
  EXPECT_TRUE(p.links_shared);
  EXPECT_EQ(p.simulated_ranks, 24);
  EXPECT_NE(p.note.find("not folded"), std::string::npos) << p.note;
  EXPECT_NE(p.note.find("node 1"), std::string::npos) << p.note;
}

TEST(FoldPlan, OffFaultsAndCallersKeepEveryRank) {
  Scenario s = fold_job(8, 2, 8, 2, "analytic");
  s.simulation.fold = FoldMode::Off;
  FoldPlan p = plan_fold(s);
  EXPECT_FALSE(p.folded);
  EXPECT_FALSE(p.enabled);
  EXPECT_NE(p.note.find("simulation.fold is off"), std::string::npos);
  s.simulation.fold = FoldMode::Auto;
  p = plan_fold(s, false, "a trace of every rank");
  EXPECT_FALSE(p.folded);
  EXPECT_NE(p.note.find("a trace of every rank"), std::string::npos);
  Fault f;
  f.kind = Fault::Kind::Straggler;
  f.rank = 40;
  f.slowdown = 1.5;
  s.cluster.faults = {f};
  p = plan_fold(s);
  EXPECT_FALSE(p.folded);
  EXPECT_NE(p.note.find("cluster.faults"), std::string::npos);
}

TEST(FoldPlan, PipelineBeforeDataParallelOrderFoldsToo) {
  Scenario s = fold_job(8, 2, 8, 2, "analytic");
  s.dist.order = "tp-cp-ep-pp-dp";
  const FoldPlan p = plan_fold(s);
  ASSERT_TRUE(p.folded) << p.note;
  EXPECT_EQ(p.simulated_ranks, 16);
  AnalyticBackend backend;
  const auto r = test::run_both(s, backend);
  test::expect_same_report(r.folded.report, r.unfolded.report);
}

TEST(FoldOption, ReadFromTheScenarioWithItsFieldNamedOnBadInput) {
  const std::string base =
      "name: x\nmodel: {num_layers: 2, hidden_size: 1024, num_attention_heads: 8, seq_length: 4096, "
      "context_parallel_size: 2}\ncluster: {gpus_per_node: 8}\nsimulation:\n  backend: analytic\n";
  LoadOptions o;
  o.hardware_dir = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/hardware";
  EXPECT_EQ(load_scenario_string(base, o).simulation.fold, FoldMode::Auto);
  EXPECT_EQ(load_scenario_string(base + "  fold: off\n", o).simulation.fold, FoldMode::Off);
  EXPECT_EQ(load_scenario_string(base + "  fold: auto\n", o).simulation.fold, FoldMode::Auto);
  try {
    (void)load_scenario_string(base + "  fold: no\n", o, "job.yaml");
    ADD_FAILURE() << "fold: no was accepted";
  } catch (const ScenarioError& e) {
    const Diagnostic& d = e.diagnostics().items().at(0);
    EXPECT_EQ(d.path, "simulation.fold");
    EXPECT_EQ(d.line, 6);
    EXPECT_NE(d.message.find("valid values: auto, off"), std::string::npos) << d.message;
  }
}

class FoldedEqualsUnfolded : public ::testing::TestWithParam<std::tuple<int, int, int, int>> {};

TEST_P(FoldedEqualsUnfolded, Analytic) {
  const auto [nodes, tp, cp, pp] = GetParam();
  AnalyticBackend backend;
  const auto r = test::run_both(fold_job(nodes, tp, cp, pp, "analytic"), backend);
  ASSERT_TRUE(r.folded.report.fold && r.folded.report.fold->folded);
  EXPECT_LT(r.folded.report.world_size, r.unfolded.report.world_size);
  EXPECT_EQ(r.folded.report.fold->represented_ranks, nodes * 8);
  EXPECT_FALSE(r.unfolded.report.fold->folded);
  test::expect_same_report(r.folded.report, r.unfolded.report);
}

INSTANTIATE_TEST_SUITE_P(Jobs, FoldedEqualsUnfolded,
                         ::testing::Values(std::make_tuple(8, 2, 8, 2),    // 2-node unit, pp 2, dp 2
                                           std::make_tuple(4, 4, 2, 2),    // 1-node unit, pp 2, dp 2
                                           std::make_tuple(6, 2, 6, 1),    // units of 2 groups sharing a node
                                           std::make_tuple(4, 1, 4, 2)));  // 2 groups per node, intra-node only

TEST(FoldedEqualsUnfolded, RefusedFoldGivesTheSameNumbersAsFoldOff) {
  AnalyticBackend backend;
  const auto r = test::run_both(fold_job(3, 2, 6, 1, "analytic"), backend);
  ASSERT_TRUE(r.folded.report.fold.has_value());
  EXPECT_FALSE(r.folded.report.fold->folded);
  EXPECT_EQ(r.folded.report.world_size, 24);
  test::expect_same_report(r.folded.report, r.unfolded.report);
}

// (rank, name, start, end, kind) of every event of a trace file: what must not depend on folding.
std::vector<std::tuple<int, std::string, double, double, int>> events_of(const std::string& path) {
  const Trace t = read_chrome_trace(path);
  std::vector<std::tuple<int, std::string, double, double, int>> out;
  for (const auto& e : t.events) out.emplace_back(e.rank, e.name, e.start_s, e.end_s, static_cast<int>(e.kind));
  std::sort(out.begin(), out.end());
  return out;
}

TEST(FoldedTrace, ChosenRanksOfOtherReplicasAreThoseOfTheUnfoldedRun) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("hcpsim-fold-trace-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const Scenario s = fold_job(8, 2, 8, 2, "analytic");
  AnalyticBackend backend;
  SimulateOptions fold, all;
  fold.keep_events = all.keep_events = false;
  all.replicas_once = false;
  fold.trace_path = (dir / "folded.json").string();
  all.trace_path = (dir / "all.json").string();
  fold.trace_filter.ranks = all.trace_filter.ranks = {{3, 3}, {20, 21}, {63, 63}};   // replicas 0, 1 and 3
  const SimulationResult f = simulate_scenario(s, backend, fold);
  const SimulationResult u = simulate_scenario(s, backend, all);
  ASSERT_TRUE(f.report.fold->folded);
  EXPECT_GT(f.trace_file_events, 0u);
  EXPECT_EQ(f.trace_file_events, u.trace_file_events);
  const auto fe = events_of(fold.trace_path), ue = events_of(all.trace_path);
  ASSERT_EQ(fe.size(), ue.size());
  for (std::size_t i = 0; i < fe.size(); ++i) {
    EXPECT_EQ(std::get<0>(fe[i]), std::get<0>(ue[i]));
    EXPECT_EQ(std::get<1>(fe[i]), std::get<1>(ue[i]));
    EXPECT_NEAR(std::get<2>(fe[i]), std::get<2>(ue[i]), 1e-9);
    EXPECT_NEAR(std::get<3>(fe[i]), std::get<3>(ue[i]), 1e-9);
    EXPECT_EQ(std::get<4>(fe[i]), std::get<4>(ue[i]));
  }
  const Trace folded_trace = read_chrome_trace(fold.trace_path);
  bool has_63 = false;
  for (const auto& e : folded_trace.events) has_63 = has_63 || e.rank == 63;
  EXPECT_TRUE(has_63);
  EXPECT_EQ(folded_trace.world_size, 64);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hcpsim
