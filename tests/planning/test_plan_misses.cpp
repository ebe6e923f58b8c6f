// The planner's closest misses (valid layouts that do not fit): how many are kept, least memory
// first, and their predictions on request (PlanOptions::misses, predict_misses).
#include <gtest/gtest.h>

#include <stdexcept>

#include "engine/memory/memory_model.h"
#include "engine/planning/planner.h"
#include "engine/validate/validate.h"
#include "tests/support/llama3_models.h"

namespace hcpsim::planning {
namespace {

// Llama-70B, 128K, pp=4 on 64 GPUs with full recomputation: small tp and cp do not fit.
Scenario llama70b_64_gpus() {
  Scenario s = test::scenario_of_shape(test::kLlama3_70B);
  s.model.seq_length = 131072;
  s.model.pipeline_model_parallel_size = 4;
  s.model.sequence_parallel = true;
  s.cluster.nodes = 8;
  return s;
}

PlanOptions layouts(std::size_t misses, bool predict) {
  PlanOptions o;
  o.top = 3;
  o.memory.recompute = Recompute::Full;
  o.search = PlanSearch::layouts_only();
  o.misses = misses;
  o.predict_misses = predict;
  return o;
}

// A predictor whose answer depends on the layout: tokens/s per GPU grow with cp and fall with tp.
PointMetrics by_layout(const Scenario& s) {
  PointMetrics m;
  m.step_s = 1.0 / s.cp() + 0.01 * s.tp();
  m.tokens_per_s_per_gpu = 1000.0 / m.step_s;
  return m;
}

Diagnostics rules(const Scenario& s) { return validate(s); }

TEST(PlanMisses, KeepsTheRequestedNumberLeastMemoryFirst) {
  const Scenario base = llama70b_64_gpus();
  const PlanOutcome every = plan(base, layouts(100000, false), rules, by_layout);
  ASSERT_GT(every.out_of_memory, 10u);
  ASSERT_EQ(every.closest_misses.size(), every.out_of_memory);
  const PlanOutcome ten = plan(base, layouts(10, false), rules, by_layout);
  ASSERT_EQ(ten.closest_misses.size(), 10u);
  EXPECT_EQ(ten.out_of_memory, every.out_of_memory);
  for (std::size_t i = 0; i < ten.closest_misses.size(); ++i) {
    EXPECT_EQ(ten.closest_misses[i].candidate.label(), every.closest_misses[i].candidate.label()) << i;
    EXPECT_GT(ten.closest_misses[i].total_bytes, ten.closest_misses[i].capacity_bytes) << i;
    if (i > 0) {
      EXPECT_LE(ten.closest_misses[i - 1].total_bytes, ten.closest_misses[i].total_bytes) << i;
    }
    EXPECT_FALSE(ten.closest_misses[i].result.has_value()) << "not predicted unless asked";
  }
  PlanOptions defaults;
  defaults.search = PlanSearch::layouts_only();
  EXPECT_EQ(plan(base, defaults, rules, by_layout).closest_misses.size(), 3u) << "three by default, as `hcpsim plan` prints";
}

TEST(PlanMisses, PredictedMissesCarryTheirMemoryAndDoNotFit) {
  const Scenario base = llama70b_64_gpus();
  const PlanOptions o = layouts(8, true);
  const PlanOutcome out = plan(base, o, rules, by_layout);
  ASSERT_EQ(out.closest_misses.size(), 8u);
  for (const PlanMiss& m : out.closest_misses) {
    ASSERT_TRUE(m.result.has_value()) << m.candidate.label();
    const PointResult& r = *m.result;
    const Scenario s = apply_candidate(base, m.candidate, 64);
    EXPECT_EQ(r.status, PointStatus::Ok) << r.message;
    EXPECT_FALSE(r.fits);
    EXPECT_FALSE(estimate_memory(s, o.memory).fits) << m.candidate.label();
    EXPECT_DOUBLE_EQ(r.metrics.memory_per_gpu_bytes, m.total_bytes);
    EXPECT_GT(r.metrics.memory_per_gpu_bytes, m.capacity_bytes);
    EXPECT_DOUBLE_EQ(r.metrics.tokens_per_s_per_gpu, by_layout(s).tokens_per_s_per_gpu) << m.candidate.label();
    EXPECT_EQ(r.labels, std::vector<std::string>{m.candidate.label()});
  }
}

TEST(PlanMisses, AMissWhosePredictionThrowsIsAnErrorNotADrop) {
  const Scenario base = llama70b_64_gpus();
  const PlanOptions o = layouts(4, true);
  auto fitting_only = [&o](const Scenario& s) {
    if (!estimate_memory(s, o.memory).fits) throw std::runtime_error("no backend run");
    return by_layout(s);
  };
  const PlanOutcome out = plan(base, o, rules, fitting_only);
  ASSERT_EQ(out.closest_misses.size(), 4u);
  EXPECT_EQ(out.failed, 0u) << "misses are not counted among the fitting layouts' failures";
  for (const PlanMiss& m : out.closest_misses) {
    ASSERT_TRUE(m.result.has_value());
    EXPECT_EQ(m.result->status, PointStatus::Error);
    EXPECT_EQ(m.result->message, "no backend run");
  }
}

}  // namespace
}  // namespace hcpsim::planning
