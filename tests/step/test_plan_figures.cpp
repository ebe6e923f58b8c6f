// One definition per figure: every number a sweep row shows equals the same field of `simulate`'s
// report for the same scenario; the memory column follows the scenario's recomputation; MFU counts
// each op at the peak of its precision.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "engine/app/engine_backends.h"
#include "engine/backend/backend.h"
#include "engine/planning/planner.h"
#include "engine/app/point_eval.h"
#include "engine/app/simulate.h"
#include "engine/scenario/loader.h"
#include "engine/validate/validate.h"
#include "engine/step/model_flops.h"

namespace hcpsim::planning {
namespace {

const std::string kExample = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml";

Scenario load(const std::string& path, std::vector<std::string> overrides = {}) {
  LoadOptions lo;
  lo.overrides = std::move(overrides);
  return load_scenario_file(path, lo);
}

void expect_same(double sweep, double simulate, const char* what) {
  if (std::isnan(sweep)) {
    EXPECT_TRUE(std::isnan(simulate) || simulate == 0) << what;
    return;
  }
  EXPECT_NEAR(sweep, simulate, 1e-9 * std::max(1.0, std::abs(simulate))) << what;
}

// For several points: the sweep row (evaluate_point) against simulate's JSON report.
TEST(PlanFigures, EverySweepColumnEqualsTheMatchingFieldOfSimulate) {
  BackendRegistry reg;
  register_engine_backends(reg);
  const std::vector<std::vector<std::string>> points = {
      {},
      {"model.recompute_granularity=full"},
      {"model.pipeline_model_parallel_size=2", "cluster.nodes=2", "train.global_batch_size=8"},
      {"model.fp8=hybrid", "model.fp8_dot_product_attention=true"},
      {"train.mode=prefill"}};
  for (const auto& o : points) {
    SweepPoint p;
    p.overrides = o;
    p.labels = {"x"};
    const PointResult row = evaluate_point(kExample, p, "analytic", reg, {});
    ASSERT_EQ(row.status, PointStatus::Ok) << row.message;
    const Scenario s = load(kExample, o);
    auto backend = reg.create("analytic");
    const SimulationResult sim = simulate_scenario(s, *backend);
    const nlohmann::json j = nlohmann::json::parse(report_to_json(sim.report));
    const PointMetrics& m = row.metrics;
    const std::string at = o.empty() ? "base" : o.front();
    SCOPED_TRACE(at);
    expect_same(m.step_s, j.at("step_s").get<double>(), "step_s");
    expect_same(m.step_s, j.at("step").at("time_s").get<double>(), "step.time_s");
    expect_same(m.tokens_per_s_per_gpu, j.at("step").at("tokens_per_s_per_gpu").get<double>(), "tokens/s per GPU");
    expect_same(m.mfu, j.at("step").at("mfu").get<double>(), "mfu");
    expect_same(m.mfu_causal, j.at("step").at("mfu_causal").get<double>(), "mfu_causal");
    expect_same(m.pipeline_bubble_fraction, j.at("step").at("pipeline_bubble_fraction").get<double>(), "bubble");
    expect_same(m.attention_forward_s, j.at("attention").at("forward_s").get<double>(), "attention forward");
    expect_same(m.layer_forward_s, j.at("layer").at("forward_s").get<double>(), "layer forward");
    expect_same(m.memory_per_gpu_bytes, j.at("memory").at("peak_bytes_per_gpu").get<double>(), "memory");
    EXPECT_EQ(row.fits, j.at("memory").at("fits").get<bool>());
    if (s.train.mode == TrainMode::Train) {
      expect_same(m.attention_backward_s, j.at("attention").at("backward_s").get<double>(), "attention backward");
      expect_same(m.layer_backward_s, j.at("layer").at("backward_s").get<double>(), "layer backward");
    } else {
      expect_same(m.ttft_s, j.at("step").at("ttft_s").get<double>(), "ttft");
    }
    // The per-micro-batch figure is named as such and is not the step.
    EXPECT_LT(j.at("micro_batch_s").get<double>(), j.at("step_s").get<double>());
  }
}

// The memory column of a sweep used the scenario's recomputation only through --recompute: full and
// selective printed the same memory. Each point now carries its own.
TEST(PlanFigures, SweepMemoryFollowsEachPointsRecomputation) {
  BackendRegistry reg;
  register_engine_backends(reg);
  std::map<std::string, double> bytes;
  for (const char* r : {"full", "selective"}) {
    SweepPoint p;
    p.overrides = {std::string("model.recompute_granularity=") + r};
    p.labels = {r};
    const PointResult row = evaluate_point(kExample, p, "analytic", reg, {});
    ASSERT_EQ(row.status, PointStatus::Ok) << row.message;
    bytes[r] = row.metrics.memory_per_gpu_bytes;
    EXPECT_DOUBLE_EQ(row.metrics.memory_per_gpu_bytes, estimate_memory(load(kExample, p.overrides)).total_bytes);
  }
  EXPECT_LT(bytes["full"], bytes["selective"]);
  // The shipped scenario recomputes (full): its own row fits, as simulate says.
  SweepPoint own;
  own.labels = {"own"};
  const PointResult row = evaluate_point(kExample, own, "analytic", reg, {});
  EXPECT_EQ(row.fits, estimate_memory(load(kExample)).fits);
  EXPECT_DOUBLE_EQ(row.metrics.memory_per_gpu_bytes, estimate_memory(load(kExample)).total_bytes);
}

// MFU divides by the peak of the precision each op ran in: FP8 GEMMs at the FP8 peak. The same step
// time at FP8 gives a lower MFU than at bf16, never above 100 %.
TEST(PlanFigures, MfuCountsEachOpAtThePeakOfItsPrecision) {
  const Scenario bf16 = load(kExample);
  const Scenario fp8 = load(kExample, {"model.fp8=hybrid", "model.fp8_dot_product_attention=true"});
  const step::ModelFlops f = step::model_flops(bf16);
  const double w = bf16.world_size();
  const double t_bf16 = step::peak_time_s(f, bf16, w, false);
  const double t_fp8 = step::peak_time_s(f, fp8, w, false);
  EXPECT_NEAR(t_bf16, f.step / (w * bf16.cluster.gpu.bf16_flops), 1e-12 * t_bf16);   // bf16: Megatron's MFU
  EXPECT_LT(t_fp8, t_bf16);
  // Only the output layer stays at the bf16 peak under FP8.
  const double expect = (f.step - f.step_output_layer) / (w * fp8.cluster.gpu.fp8_flops) +
                        f.step_output_layer / (w * fp8.cluster.gpu.bf16_flops);
  EXPECT_NEAR(t_fp8, expect, 1e-12 * expect);
  EXPECT_LT(step::peak_time_s(f, bf16, w, true), t_bf16);   // causal halves the square
  BackendRegistry reg;
  register_engine_backends(reg);
  const PointMetrics m = predict_scenario(fp8, "analytic", reg);
  EXPECT_GT(m.mfu, 0.0);
  EXPECT_LT(m.mfu, 1.0);
  EXPECT_LT(m.mfu_causal, m.mfu);
}

}  // namespace
}  // namespace hcpsim::planning
