// The planner on real predictions (analytic backend, the engine's validate()): it proposes only
// valid configurations that fit, ranks them by tokens/s per GPU, searches pp/vpp/dp/batch/recompute,
// and a dp=2 layout beats a dp=1 layout of the same GPU count.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "engine/app/engine_backends.h"
#include "engine/app/point_eval.h"
#include "engine/backend/backend.h"
#include "engine/planning/planner.h"
#include "engine/scenario/loader.h"
#include "engine/validate/validate.h"

namespace hcpsim::planning {
namespace {

Scenario example(const std::string& file, std::vector<std::string> overrides = {}) {
  LoadOptions lo;
  lo.overrides = std::move(overrides);
  return load_scenario_file(std::string(HCPSIM_SOURCE_DIR) + "/scenarios/" + file, lo);
}

TEST(PlanStep, DataParallelReplicasBeatALongerCpRingAtTheSameGpuCount) {
  // 16 GPUs, global batch 16: tp4 cp2 dp2 processes two sequences at once; tp4 cp4 dp1 runs each
  // sequence over twice the ranks with more ring steps. Both reduce gradients over 4 ranks (DP x CP).
  Scenario base = example("llama3-8b-64k-dgx-h100-p2p.yaml", {"cluster.nodes=2", "train.global_batch_size=16"});
  BackendRegistry reg;
  register_engine_backends(reg);
  PlanCandidate dp2;
  dp2.tp = 4;
  dp2.cp = 2;
  dp2.dp = 2;
  PlanCandidate dp1 = dp2;
  dp1.cp = 4;
  dp1.dp = 1;
  const Scenario a = apply_candidate(base, dp2, 16), b = apply_candidate(base, dp1, 16);
  ASSERT_FALSE(validate(a).has_errors());
  ASSERT_FALSE(validate(b).has_errors());
  const PointMetrics ma = predict_scenario(a, "analytic", reg), mb = predict_scenario(b, "analytic", reg);
  EXPECT_GT(ma.tokens_per_s_per_gpu, mb.tokens_per_s_per_gpu);
  EXPECT_LT(ma.step_s, mb.step_s);
  // Same tokens, same GPUs: tokens/s per GPU is exactly the inverse ratio of the step times.
  EXPECT_NEAR(ma.tokens_per_s_per_gpu / mb.tokens_per_s_per_gpu, mb.step_s / ma.step_s, 1e-9);
}

TEST(PlanStep, PlanOnAnExampleFindsFittingConfigurationsRankedByThroughput) {
  const Scenario base = example("llama3-8b-64k-dgx-h100-p2p.yaml", {"train.global_batch_size=8"});
  BackendRegistry reg;
  register_engine_backends(reg);
  LayerCache cache;
  PlanOptions o;
  o.top = 1000;
  std::size_t progress_calls = 0;
  o.progress = [&](std::size_t, std::size_t, std::size_t) { ++progress_calls; };
  const PlanOutcome out = plan(base, o, [](const Scenario& s) { return validate(s); },
                               [&](const Scenario& s) { return predict_scenario(s, "analytic", reg, &cache); });
  EXPECT_EQ(out.metric, "tokens_per_s_per_gpu");
  ASSERT_GT(out.best.size(), 10u);
  EXPECT_GT(progress_calls, 0u);
  EXPECT_EQ(out.enumerated, out.invalid + out.out_of_memory + out.failed + out.best.size());
  std::set<int> pps, mbss;
  std::set<Recompute> recomputes;
  for (std::size_t i = 0; i < out.best.size(); ++i) {
    const PlanEntry& e = out.best[i];
    EXPECT_FALSE(validate(e.scenario).has_errors()) << e.candidate.label();
    EXPECT_TRUE(e.memory.fits) << e.candidate.label();
    EXPECT_LE(e.memory.total_bytes, e.scenario.cluster.gpu.memory_bytes);
    EXPECT_EQ(e.scenario.model.sequence_parallel, e.candidate.tp > 1);
    EXPECT_EQ(e.scenario.global_batch(), 8);
    if (i > 0) {
      EXPECT_GE(out.best[i - 1].result.metrics.tokens_per_s_per_gpu, e.result.metrics.tokens_per_s_per_gpu);
    }
    pps.insert(e.candidate.pp);
    mbss.insert(e.candidate.mbs);
    recomputes.insert(e.candidate.recompute);
  }
  EXPECT_GT(pps.size(), 1u);          // the pipeline is searched
  EXPECT_GT(recomputes.size(), 1u);   // and recomputation
  EXPECT_NE(out.best[0].explanation.find("best tokens_per_s_per_gpu"), std::string::npos) << out.best[0].explanation;
  EXPECT_NE(out.best[1].explanation.find("below the best tokens_per_s_per_gpu"), std::string::npos);
  // Recomputation only costs time: among otherwise equal layouts the best never recomputes when
  // no recomputation fits.
  if (out.best[0].candidate.recompute != Recompute::None) {
    MemoryOptions none;
    none.recompute = Recompute::None;
    EXPECT_FALSE(estimate_memory(out.best[0].scenario, none).fits);
  }
}

TEST(PlanStep, PrefillIsRankedByTimeToFirstToken) {
  const Scenario base = example("llama3-8b-64k-dgx-h100-p2p.yaml", {"train.mode=prefill"});
  BackendRegistry reg;
  register_engine_backends(reg);
  LayerCache cache;
  PlanOptions o;
  o.top = 5;
  o.search = PlanSearch::layouts_only();
  const PlanOutcome out = plan(base, o, [](const Scenario& s) { return validate(s); },
                               [&](const Scenario& s) { return predict_scenario(s, "analytic", reg, &cache); });
  EXPECT_EQ(out.metric, "ttft_s");
  ASSERT_FALSE(out.best.empty());
  for (std::size_t i = 1; i < out.best.size(); ++i)
    EXPECT_LE(out.best[i - 1].result.metrics.ttft_s, out.best[i].result.metrics.ttft_s);
  EXPECT_GT(out.best[0].result.metrics.ttft_s, 0);
}

}  // namespace
}  // namespace hcpsim::planning
