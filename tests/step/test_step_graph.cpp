// The composed step (compose_step over one layer's times) against the makespan of the whole-step
// task graph (build_step_graph) on the analytic backend, scenarios of step_graph_cases.h; and the
// graph's own structure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "engine/analytic/analytic_backend.h"
#include "engine/schedule/build.h"
#include "tests/step/step_graph_cases.h"

namespace hcpsim::step::testing {
namespace {

std::string test_name(const ::testing::TestParamInfo<StepCase>& param_info) {
  return step_case_test_name(param_info.param);
}

class ComposedVsFullGraph : public ::testing::TestWithParam<StepCase> {};

TEST_P(ComposedVsFullGraph, AnalyticWithinOnePercent) {
  const Scenario s = step_case_scenario(GetParam());
  AnalyticBackend backend;
  const StepComparison c = compare_step(s, backend);
  std::printf("analytic %-26s composed %.6f s  full graph %.6f s  (%zu tasks)  %+.3f %%\n", GetParam().name.c_str(),
              c.composed_s, c.full_graph_s, c.full_graph_tasks, 100 * c.difference());
  EXPECT_LT(std::abs(c.difference()), 0.01);
}

// Without NCCL's share of the GPU and its host overheads, and with nothing overlapped, the composed
// step is the graph's makespan up to the layer composition (rounding): every remaining term is the
// same alpha-beta time in both. NCCL's p2p channel cap (docs/metrics.md 9.10) is off too: the
// graph's pipeline send/recv ops get it, the composed step's pipeline transfers do not.
TEST_P(ComposedVsFullGraph, NominalModelWithoutOverlapIsExact) {
  StepCase sc = GetParam();
  sc.overlap_grad_reduce = sc.overlap_param_gather = false;
  Scenario s = step_case_scenario(sc);
  s.cluster.efficiency.terms.comm_compute_interference = false;
  s.cluster.efficiency.terms.host_overheads = false;
  s.cluster.efficiency.terms.nccl_p2p_channels = false;
  AnalyticBackend backend;
  const StepComparison c = compare_step(s, backend);
  EXPECT_LT(std::abs(c.difference()), 1e-4) << c.composed_s << " vs " << c.full_graph_s;
}

INSTANTIATE_TEST_SUITE_P(StepGraph, ComposedVsFullGraph, ::testing::ValuesIn(step_cases()), test_name);
// Without contention (analytic), shared NICs change nothing: the same check holds.
INSTANTIATE_TEST_SUITE_P(SharedNics, ComposedVsFullGraph, ::testing::ValuesIn(shared_nic_limit_cases()), test_name);

// DistFlashAttn's ranks do unequal work per step (even cp: the low ranks idle in the last step, and
// the last results travel back after the slowest rank's block), so the whole-step graph lets a rank
// run into the next layer while another finishes: the composed step, which adds the slowest rank's
// layer time per layer, is an upper bound of the graph's makespan, within a few percent.
TEST(StepGraph, DistFlashAttnComposedStepBoundsTheGraph) {
  for (const RecomputeGranularity r : {RecomputeGranularity::None, RecomputeGranularity::NonAttention}) {
    const Scenario s = step_case_scenario({.name = "pp2-m4-dfa", .recompute = r, .comm = CpCommType::DistFlashAttn});
    AnalyticBackend backend;
    const StepComparison c = compare_step(s, backend);
    EXPECT_GT(c.full_graph_s, 0.0);
    EXPECT_LE(c.full_graph_s, c.composed_s * (1 + 1e-9)) << to_string(r);
    EXPECT_LT(c.difference(), 0.06) << to_string(r);
  }
}

struct KindCounter : TraceSink {
  std::map<std::string, int> by_label;
  double optimizer_start_s = 1e300, last_reduce_end_s = 0;
  void record(const TraceEvent&) override {}
  void record_task(const TaskGraph& g, const Task& t, double start, double end) override {
    const std::string label(g.label(t));
    ++by_label[label];
    if (label == "optimizer") optimizer_start_s = std::min(optimizer_start_s, start);
    if (label == "grad_reduce_scatter") last_reduce_end_s = std::max(last_reduce_end_s, end);
  }
};

TEST(StepGraph, HoldsEveryStageMicroBatchTransferAndBucket) {
  // pp 4, vpp 2, m 8 on 32 GPUs (tp 2 x cp 2 x dp 2 per stage), 8 layers: one layer per chunk.
  const StepCase sc{.name = "structure", .pp = 4, .vpp = 2, .micro_batches = 8};
  const Scenario s = step_case_scenario(sc);
  const RankLayout layout = RankLayout::from_scenario(s);
  const TaskGraph g = build_step_graph(s, layout);
  const CostModel cost(s);
  KindCounter k;
  AnalyticBackend backend;
  backend.run(g, RunContext{s, layout, cost, {}}, k);
  const int ranks_per_stage = 8, world = 32, m = 8, v = 2, p = 4;
  // Forward transfers: every (micro-batch, chunk) leaves every stage except the loss chunk of the
  // last stage, from each of the stage's 8 ranks; the backward mirrors it.
  EXPECT_EQ(k.by_label["pp_send_activation"], m * (v * p - 1) * ranks_per_stage);
  EXPECT_EQ(k.by_label["pp_recv_activation"], m * (v * p - 1) * ranks_per_stage);
  EXPECT_EQ(k.by_label["pp_send_grad"], m * (v * p - 1) * ranks_per_stage);
  // Embedding on stage 0 and output layer + loss on the last stage, once per micro-batch per rank.
  EXPECT_EQ(k.by_label["embedding"], m * ranks_per_stage);
  EXPECT_EQ(k.by_label["output_gemm"], m * ranks_per_stage);
  EXPECT_EQ(k.by_label["output_wgrad"], m * ranks_per_stage);
  // One gradient bucket and one parameter bucket per layer of the stage (2), on every rank.
  EXPECT_EQ(k.by_label["grad_reduce_scatter"], 2 * world);
  EXPECT_EQ(k.by_label["param_all_gather"], 2 * world);
  EXPECT_EQ(k.by_label["optimizer"], world);
  // The optimizer waits for every stage's gradients (the gradient-norm all-reduce joins them).
  EXPECT_GE(k.optimizer_start_s, k.last_reduce_end_s);
  // Each rank runs each of its 2 layers forward and backward for every micro-batch: m x 2 copies of
  // the one-layer graph (every rank's share of it), plus the transfers, kernels and collectives.
  const TaskGraph one = build_task_graph(s, layout, GraphOptions{.layers = 1, .whole_layer = true});
  EXPECT_GT(g.size(), static_cast<std::size_t>(m * 2) * one.size());
}

TEST(StepGraph, RefusesAboveItsSizeLimitAndPrefill) {
  const Scenario s = step_case_scenario({.name = "limit"});
  const RankLayout layout = RankLayout::from_scenario(s);
  const std::size_t estimate = step_graph_task_estimate(s);
  EXPECT_GT(estimate, 1000u);
  try {
    (void)build_step_graph(s, layout, StepGraphOptions{.max_tasks = estimate / 2});
    FAIL() << "expected the size limit";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(estimate)), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("limit"), std::string::npos) << e.what();
  }
  // The estimate is the graph's size within 10 %.
  const TaskGraph g = build_step_graph(s, layout);
  EXPECT_NEAR(static_cast<double>(g.size()), static_cast<double>(estimate), 0.1 * estimate);
  Scenario prefill = s;
  prefill.train.mode = TrainMode::Prefill;
  EXPECT_THROW((void)build_step_graph(prefill, layout), std::invalid_argument);
}

}  // namespace
}  // namespace hcpsim::step::testing
