// The `gemm_shapes` and `fp8_work` cost-model terms on GEMMs and attention (docs/metrics.md
// sections 9.11 and 9.12): the fits against the measurements they come from, the tile, wave and
// depth fall-off, the precedence of a user-set efficiency.gemm, FP8 precision by module and FP8
// attention's own rate.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/cost/cost_model.h"
#include "engine/cost/fp8_rates.h"
#include "engine/cost/gemm_efficiency.h"
#include "engine/graph/task_graph.h"
#include "tests/cost/test_scenario.h"

namespace hcpsim {
namespace {

constexpr int kH100Sms = 132;

GemmKernelFit h100(GemmPrecision p) {
  const auto fit = published_gemm_fit("h100-sxm", p);
  EXPECT_TRUE(fit.has_value());
  return fit.value_or(GemmKernelFit{});
}

TEST(GemmShapes, H100Bf16FitReproducesTheMeasuredLargeGemm) {
  // OpenXLA's sm_90 table: 4096 x 4096 x 4096 at 783 TFLOP/s of 989.
  const double eff = gemm_shape_efficiency(h100(GemmPrecision::BF16), {4096, 4096, 4096}, kH100Sms);
  EXPECT_NEAR(eff * 989.0, 783.0, 0.05 * 783.0);
}

TEST(GemmShapes, H100Fp8FitReproducesTheMeasuredDepthSweep) {
  // tile-lang's FP8 sweep at m = n = 8192 on H800: 1129 TFLOP/s at k 1024, 1467 at 4096, 1541 at 16384.
  const GemmKernelFit f = h100(GemmPrecision::FP8);
  EXPECT_NEAR(gemm_shape_efficiency(f, {8192, 8192, 1024}, kH100Sms) * 1979.0, 1129.0, 0.05 * 1129.0);
  EXPECT_NEAR(gemm_shape_efficiency(f, {8192, 8192, 4096}, kH100Sms) * 1979.0, 1467.0, 0.05 * 1467.0);
  EXPECT_NEAR(gemm_shape_efficiency(f, {8192, 8192, 16384}, kH100Sms) * 1979.0, 1541.0, 0.05 * 1541.0);
  EXPECT_DOUBLE_EQ(f.k_half, 2.0 * h100(GemmPrecision::BF16).k_half);
}

TEST(GemmShapes, ShallowGemmsReachHalfTheirDeepRateAtKHalf) {
  const GemmKernelFit f = h100(GemmPrecision::BF16);
  const double deep = gemm_shape_efficiency(f, {128.0 * 132, 256, 1e9}, kH100Sms);
  const double shallow = gemm_shape_efficiency(f, {128.0 * 132, 256, f.k_half}, kH100Sms);
  EXPECT_NEAR(shallow / deep, 0.5, 1e-6);
}

TEST(GemmShapes, OneTileMoreThanAWaveCostsAlmostAWholeWave) {
  const GemmKernelFit f = h100(GemmPrecision::BF16);
  // 132 wide tiles fill one wave exactly; 133 need a second wave (the narrow tile then does better,
  // 266 tiles over 3 waves, at its own lower rate).
  const double full = gemm_shape_efficiency(f, {128.0 * 132, 256, 8192}, kH100Sms);
  const double over = gemm_shape_efficiency(f, {128.0 * 133, 256, 8192}, kH100Sms);
  EXPECT_LT(over, 0.7 * full);
  EXPECT_GT(over, 0.5 * full);
  // A partial tile is padded: m = 64 fills half of each 128-row tile.
  EXPECT_LT(gemm_shape_efficiency(f, {64, 8192, 8192}, kH100Sms), 0.5 * full);
}

TEST(GemmShapes, NoPublishedFitForA100) {
  EXPECT_FALSE(published_gemm_fit("a100-sxm-80gb", GemmPrecision::BF16).has_value());
  EXPECT_TRUE(published_gemm_fit("h200-sxm", GemmPrecision::FP8).has_value());
  EXPECT_TRUE(published_gemm_fit("b200", GemmPrecision::BF16).has_value());
  EXPECT_TRUE(published_gemm_fit("gb200", GemmPrecision::BF16).has_value());
}

Scenario layer_scenario() {
  Scenario s = test::dgx_scenario();
  s.cluster.gpu.name = "h100-sxm";
  s.cluster.gpu.fp8_flops = 1979e12;
  s.model.hidden_size = 4096;
  s.model.ffn_hidden_size = 14336;
  s.model.num_attention_heads = 32;
  s.model.num_query_groups = 8;
  s.model.seq_length = 8192;
  s.model.context_parallel_size = 1;
  s.model.tensor_model_parallel_size = 2;
  return s;
}

TEST(GemmShapes, ShapeOfALayerGemmByLabel) {
  const Scenario s = layer_scenario();
  const auto qkv = gemm_shape_of(s, "qkv_proj");
  ASSERT_TRUE(qkv.has_value());
  EXPECT_DOUBLE_EQ(qkv->m, 8192);
  EXPECT_DOUBLE_EQ(qkv->k, 4096);
  EXPECT_DOUBLE_EQ(qkv->n, (4096 + 2 * 1024) / 2.0);
  const auto wgrad = gemm_shape_of(s, "fc2_wgrad");   // [ffn/tp x tokens] x [tokens x h]
  ASSERT_TRUE(wgrad.has_value());
  EXPECT_DOUBLE_EQ(wgrad->m, 14336 / 2.0);
  EXPECT_DOUBLE_EQ(wgrad->k, 8192);
  EXPECT_DOUBLE_EQ(wgrad->n, 4096);
  const auto out = gemm_shape_of(s, "output_dgrad");
  ASSERT_TRUE(out.has_value());
  EXPECT_DOUBLE_EQ(out->k, 128256 / 2.0);
  EXPECT_FALSE(gemm_shape_of(s, "attn").has_value());
}

// Seconds of one GEMM task labelled `label` of the scenario's qkv size.
double gemm_seconds(const Scenario& s, const char* label, double flops) {
  const CostModel cost(s);
  TaskGraph g;
  Task t;
  t.kind = TaskKind::Gemm;
  t.flops = flops;
  const TaskId id = g.add_task(t, label);
  return cost.compute_seconds(g, g.task(id));
}

TEST(GemmShapes, TermOnUsesTheFitAndOffTheFlatEfficiency) {
  Scenario s = layer_scenario();
  const double flops = 2.0 * 8192 * 4096 * 3072;
  s.cluster.efficiency.terms.gemm_shapes = false;
  const double off = gemm_seconds(s, "qkv_proj", flops);
  EXPECT_NEAR(off, 2e-6 + flops / (989e12 * 0.75), 1e-12);
  s.cluster.efficiency.terms.gemm_shapes = true;
  const double on = gemm_seconds(s, "qkv_proj", flops);
  const double eff = gemm_shape_efficiency(h100(GemmPrecision::BF16), {8192, 3072, 4096}, kH100Sms);
  EXPECT_NEAR(on, 2e-6 + flops / (989e12 * eff), 1e-12);
  EXPECT_NE(on, off);
}

TEST(GemmShapes, UserSetGemmEfficiencyIsThePlateauTheShapeScales) {
  Scenario s = layer_scenario();
  s.cluster.efficiency.terms.gemm_shapes = true;
  s.cluster.efficiency.gemm = 0.5;
  s.locations["cluster.efficiency.gemm"] = SourceLocation{12, 5, 0};
  const double flops = 2.0 * 8192 * 4096 * 3072;
  const GemmKernelFit f = h100(GemmPrecision::BF16);
  const double shape = gemm_shape_efficiency(f, {8192, 3072, 4096}, kH100Sms) / f.plateau;
  EXPECT_NEAR(gemm_seconds(s, "qkv_proj", flops), 2e-6 + flops / (989e12 * 0.5 * shape), 1e-12);
  // Without the term the stated value holds for every shape.
  s.cluster.efficiency.terms.gemm_shapes = false;
  EXPECT_NEAR(gemm_seconds(s, "qkv_proj", flops), 2e-6 + flops / (989e12 * 0.5), 1e-12);
}

TEST(Fp8Work, OutputLayerStaysBf16AndLayerGemmsRunFp8) {
  Scenario s = layer_scenario();
  s.model.fp8 = "hybrid";
  s.cluster.efficiency.terms.gemm_shapes = false;   // flat 0.75: only the peak differs
  const double flops = 1e12;
  s.cluster.efficiency.terms.fp8_work = true;
  EXPECT_NEAR(gemm_seconds(s, "output_gemm", flops), 2e-6 + flops / (989e12 * 0.75), 1e-12);
  EXPECT_NEAR(gemm_seconds(s, "fc1", flops), 2e-6 + flops / (1979e12 * 0.75), 1e-12);
  s.cluster.efficiency.terms.fp8_work = false;   // every GEMM at the FP8 peak, as without the term
  EXPECT_NEAR(gemm_seconds(s, "output_gemm", flops), 2e-6 + flops / (1979e12 * 0.75), 1e-12);
  EXPECT_TRUE(fp8_gemm_label("qkv_proj_wgrad"));
  EXPECT_FALSE(fp8_gemm_label("output_wgrad"));
}

TEST(Fp8Work, BlackwellMxfp8GemmsRunAtTheirMeasuredRateRelativeToPerTensorFp8) {
  // TE's GEMM-profiling guide, B300, pre-quantized per-layer sums: fprop 2.158 ms (current scaling)
  // vs 2.365 (MXFP8), dgrad 2.329 vs 2.397, wgrad 2.325 vs 2.400.
  EXPECT_NEAR(fp8_recipe_gemm_rate("b200", "mxfp8", GemmPass::Forward), 2.158 / 2.365, 1e-12);
  EXPECT_NEAR(fp8_recipe_gemm_rate("gb200", "mxfp8", GemmPass::Dgrad), 2.329 / 2.397, 1e-12);
  EXPECT_NEAR(fp8_recipe_gemm_rate("b200", "blockwise", GemmPass::Wgrad), 2.325 / 2.400, 1e-12);
  EXPECT_DOUBLE_EQ(fp8_recipe_gemm_rate("b200", "tensorwise", GemmPass::Forward), 1.0);
  EXPECT_DOUBLE_EQ(fp8_recipe_gemm_rate("b200", "delayed", GemmPass::Dgrad), 1.0);
  EXPECT_DOUBLE_EQ(fp8_recipe_gemm_rate("h100-sxm", "blockwise", GemmPass::Forward), 1.0);   // Hopper: native kernels, no ratio published
  EXPECT_EQ(gemm_pass_of("fc1"), GemmPass::Forward);
  EXPECT_EQ(gemm_pass_of("qkv_proj_dgrad"), GemmPass::Dgrad);
  EXPECT_EQ(gemm_pass_of("fc2_wgrad"), GemmPass::Wgrad);

  Scenario s = layer_scenario();
  s.cluster.gpu.name = "b200";
  s.cluster.gpu.bf16_flops = 2250e12;
  s.cluster.gpu.fp8_flops = 4500e12;
  s.cluster.gpu.sm_count = 148;
  s.model.fp8 = "hybrid";
  s.cluster.efficiency.terms.gemm_shapes = true;
  s.cluster.efficiency.terms.fp8_work = true;
  const double flops = 2.0 * 8192 * 4096 * 7168;
  s.model.fp8_recipe = "tensorwise";
  const double cs_fwd = gemm_seconds(s, "fc1", flops) - 2e-6, cs_dgrad = gemm_seconds(s, "fc1_dgrad", flops) - 2e-6;
  const double out_cs = gemm_seconds(s, "output_gemm", flops);
  s.model.fp8_recipe = "mxfp8";
  EXPECT_NEAR((gemm_seconds(s, "fc1", flops) - 2e-6) / cs_fwd, 2.365 / 2.158, 1e-9);
  EXPECT_NEAR((gemm_seconds(s, "fc1_dgrad", flops) - 2e-6) / cs_dgrad, 2.397 / 2.329, 1e-9);
  EXPECT_DOUBLE_EQ(gemm_seconds(s, "output_gemm", flops), out_cs);   // BF16: no recipe
  // Without the gemm_shapes term every GEMM is at efficiency.gemm, whatever the recipe.
  s.cluster.efficiency.terms.gemm_shapes = false;
  const double flat_mx = gemm_seconds(s, "fc1", flops);
  s.model.fp8_recipe = "tensorwise";
  EXPECT_DOUBLE_EQ(gemm_seconds(s, "fc1", flops), flat_mx);
}

// Transformer Engine's GEMM-profiling guide, pre-quantized: one layer (hidden 4096, QKV 12,288, FFN
// 16,384 not gated, 15,872 tokens), each pass's sum over the layer's four GEMMs in ms.
struct GuidePass {
  const char* gpu;
  GemmPrecision precision;
  double forward_ms, dgrad_ms, wgrad_ms;
};

// The modelled sum of one pass over the guide's layer, in units of FLOPs per unit peak.
double modelled_pass(const GemmKernelFit& f, GemmPass pass, int sms) {
  constexpr double kTokens = 15872;
  constexpr double kLayer[4][2] = {{4096, 12288}, {4096, 4096}, {4096, 16384}, {16384, 4096}};
  double sum = 0;
  for (const auto& g : kLayer) {
    const GemmShape shape = pass == GemmPass::Forward ? GemmShape{kTokens, g[1], g[0]}
                            : pass == GemmPass::Dgrad ? GemmShape{kTokens, g[0], g[1]}
                                                      : GemmShape{g[0], g[1], kTokens};
    sum += 2 * shape.m * shape.n * shape.k / (gemm_shape_efficiency(f, shape, sms) * gemm_pass_rate(f, pass));
  }
  return sum;
}

TEST(GemmShapes, BackwardPassesRunAtTheGuidesMeasuredRatesRelativeToTheForward) {
  const GuidePass guide[] = {{"b200", GemmPrecision::BF16, 4.250, 4.434, 4.418},
                             {"gb200", GemmPrecision::FP8, 2.158, 2.329, 2.325},
                             {"h200-sxm", GemmPrecision::BF16, 10.632, 10.747, 10.530},
                             {"h100-sxm", GemmPrecision::FP8, 5.577, 5.661, 5.547}};
  for (const GuidePass& g : guide) {
    SCOPED_TRACE(g.gpu);
    const auto fit = published_gemm_fit(g.gpu, g.precision);
    ASSERT_TRUE(fit.has_value());
    const int sms = g.gpu[0] == 'h' ? 132 : 148;
    EXPECT_DOUBLE_EQ(gemm_pass_rate(*fit, GemmPass::Forward), 1.0);
    // The shape model alone makes dgrad and wgrad faster than measured: their rates are below 1.
    EXPECT_LT(fit->dgrad_rate, 1.0);
    EXPECT_LT(fit->wgrad_rate, 1.0);
    EXPECT_GT(fit->wgrad_rate, 0.8);
    const double fwd = modelled_pass(*fit, GemmPass::Forward, sms);
    EXPECT_NEAR(modelled_pass(*fit, GemmPass::Dgrad, sms) / fwd, g.dgrad_ms / g.forward_ms, 1e-9);
    EXPECT_NEAR(modelled_pass(*fit, GemmPass::Wgrad, sms) / fwd, g.wgrad_ms / g.forward_ms, 1e-9);
  }
  // Blackwell FP8's own fit reproduces the guide's absolute forward time (B300: 4.5 PFLOP/s dense
  // FP8, 160 SMs) within 3 %.
  const auto b_fp8 = published_gemm_fit("b200", GemmPrecision::FP8);
  ASSERT_TRUE(b_fp8.has_value());
  EXPECT_NEAR(modelled_pass(*b_fp8, GemmPass::Forward, 160) / 4500e12 * 1e3, 2.158, 0.03 * 2.158);
}

TEST(GemmShapes, PassRatesApplyToLabelledBackwardGemmsOnlyWithTheTerm) {
  Scenario s = layer_scenario();
  s.cluster.efficiency.terms.gemm_shapes = true;
  const double flops = 2.0 * 8192 * 4096 * 3072;
  const GemmKernelFit f = h100(GemmPrecision::BF16);
  const auto dgrad_shape = gemm_shape_of(s, "fc2_dgrad");
  ASSERT_TRUE(dgrad_shape.has_value());
  const double dgrad_eff = gemm_shape_efficiency(f, *dgrad_shape, kH100Sms) * f.dgrad_rate;
  EXPECT_NEAR(gemm_seconds(s, "fc2_dgrad", flops), 2e-6 + flops / (989e12 * dgrad_eff), 1e-12);
  const auto wgrad_shape = gemm_shape_of(s, "fc2_wgrad");
  ASSERT_TRUE(wgrad_shape.has_value());
  const double wgrad_eff = gemm_shape_efficiency(f, *wgrad_shape, kH100Sms) * f.wgrad_rate;
  EXPECT_NEAR(gemm_seconds(s, "fc2_wgrad", flops), 2e-6 + flops / (989e12 * wgrad_eff), 1e-12);
  // Off: one flat efficiency for every pass.
  s.cluster.efficiency.terms.gemm_shapes = false;
  EXPECT_DOUBLE_EQ(gemm_seconds(s, "fc2_dgrad", flops), gemm_seconds(s, "fc2", flops));
  EXPECT_DOUBLE_EQ(gemm_seconds(s, "fc2_wgrad", flops), gemm_seconds(s, "fc2", flops));
}

double attention_seconds(const Scenario& s) {
  const CostModel cost(s);
  TaskGraph g;
  Task t;
  t.kind = TaskKind::AttentionForward;
  t.flops = 1e12;
  return cost.compute_seconds(g, t);
}

TEST(Fp8Work, Fp8AttentionRunsAtItsPublishedSpeedUpNotThePeakRatio) {
  Scenario s = layer_scenario();
  const double bf16 = attention_seconds(s) - 2e-6;
  s.model.fp8 = "hybrid";
  EXPECT_DOUBLE_EQ(attention_seconds(s) - 2e-6, bf16);   // attention stays BF16 by default
  s.model.fp8_dot_product_attention = true;
  s.cluster.efficiency.terms.fp8_work = true;
  EXPECT_NEAR((attention_seconds(s) - 2e-6) * kFp8AttentionSpeedup, bf16, 1e-12);
  s.cluster.efficiency.terms.fp8_work = false;
  EXPECT_NEAR((attention_seconds(s) - 2e-6) * 1979.0 / 989.0, bf16, 1e-12);   // the peaks ratio
}

}  // namespace
}  // namespace hcpsim
