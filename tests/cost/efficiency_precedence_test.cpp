// What the user states wins: a plateau set in the scenario or by an override is used, refined by a
// table's shape dependence only, never replaced by it; a calibration file comes next, then the
// published tables, then the defaults. The report says which value was used and where it came from.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

#include "engine/cost/attention_tables.h"
#include "engine/cost/cost_model.h"
#include "engine/cost/efficiency_sources.h"
#include "tests/cost/knob_prediction.h"

namespace hcpsim {
namespace {

// An H800 (the H100 SXM's SMs and clocks, 200 GB/s NVLink per direction) running FlashAttention-2,
// measured by its user at a third of the bf16 peak; line 5 states it.
const char* kH800 =
    "name: h800-fa2\n"                                                                            // 1
    "model: {num_layers: 1, hidden_size: 4096, num_attention_heads: 32, num_query_groups: 8,\n"   // 2
    "        kv_channels: 128, seq_length: 16384, context_parallel_size: 1}\n"                    // 3
    "cluster:\n"                                                                                  // 4
    "  efficiency: {attention_forward: 0.33, attention_kernel: fa2}\n"                           // 5
    "  nodes: 1\n"                                                                                // 6
    "  gpus_per_node: 1\n"                                                                        // 7
    "  gpu: h100-sxm\n"                                                                           // 8
    "  intra_node: {bandwidth: 200 GB/s}\n"                                                       // 9
    "simulation: {backend: analytic, layers: 1, passes: [forward]}\n";                            // 10

const EfficiencySource& source(const EfficiencySources& all, const std::string& quantity) {
  for (const auto& e : all)
    if (e.quantity == quantity) return e;
  throw std::runtime_error("no efficiency source " + quantity);
}

std::string write_temp(const std::string& text) {
  char name[] = "/tmp/hcpsim_precedence_XXXXXX";
  const int fd = mkstemp(name);
  EXPECT_GE(fd, 0);
  std::ofstream(name) << text;
  ::close(fd);
  return name;
}

TEST(EfficiencyPrecedence, AStatedAttentionPlateauMovesThePredictionInProportion) {
  // 0.25, 0.5 and 1.0 give three predictions, in inverse proportion (the same kernel fall-off).
  const double t25 = test::predict_knob(kH800, {"cluster.efficiency.attention_forward=0.25"}).attention_forward_s;
  const double t50 = test::predict_knob(kH800, {"cluster.efficiency.attention_forward=0.5"}).attention_forward_s;
  const double t100 = test::predict_knob(kH800, {"cluster.efficiency.attention_forward=1.0"}).attention_forward_s;
  EXPECT_NEAR(t25 / t50, 2.0, 0.01);
  EXPECT_NEAR(t50 / t100, 2.0, 0.01);
}

TEST(EfficiencyPrecedence, TheH800AtAThirdOfPeakIsPredictedAtAThirdOfPeak) {
  const Report stated = test::predict_knob(kH800, {});
  // The published FlashAttention-2 table's plateau at 16k tokens is the shape's reference: at 16k
  // the stated plateau applies as it is.
  EXPECT_NEAR(stated.attention_forward_tflops_per_gpu, 0.33 * 989.0, 0.01 * 0.33 * 989.0);
  // The kernel family only shapes the fall-off: at 16k tokens, the table's reference length, fa3
  // gives the user's level as fa2 does (unstated, fa3's table would predict about 1.8x faster).
  const Report fa3 = test::predict_knob(kH800, {"cluster.efficiency.attention_kernel=fa3"});
  EXPECT_NEAR(fa3.attention_forward_s, stated.attention_forward_s, 1e-12);   // the user's level wins
  const Scenario s = test::load_knob_scenario(kH800, {});
  const EfficiencySources all = efficiency_sources(CostModel(s));
  const EfficiencySource& fwd = source(all, "attention_forward");
  EXPECT_EQ(fwd.origin, ValueOrigin::Scenario);
  EXPECT_DOUBLE_EQ(fwd.value, 0.33);
  EXPECT_NE(fwd.detail.find("line 5 of knob.yaml"), std::string::npos) << fwd.detail;
  EXPECT_NE(fwd.detail.find("FlashAttention-3 paper"), std::string::npos) << fwd.detail;   // the table that shapes it
}

TEST(EfficiencyPrecedence, TheTableScalesAStatedPlateauByShapeOnly) {
  const Scenario s = test::load_knob_scenario(kH800, {});
  const CostModel cost(s);
  AttentionShape shape;
  shape.section = MaskSection::Causal;
  shape.head_dim_qk = 128;
  for (const std::int64_t len : {1024, 4096, 16384}) {
    shape.q_len = shape.kv_len = len;
    const double table = *published_attention_efficiency("h100-sxm", AttentionKernel::FA2, Pass::Forward, true, 128,
                                                          static_cast<double>(len), static_cast<double>(len));
    const double table_16k = *published_attention_efficiency("h100-sxm", AttentionKernel::FA2, Pass::Forward, true, 128,
                                                             16384, 16384);
    EXPECT_NEAR(cost.attention_efficiency(Pass::Forward, shape), 0.33 * table / table_16k, 1e-12) << len;
  }
  // The backward plateau was not stated: the table's own value.
  shape.q_len = shape.kv_len = 4096;
  EXPECT_DOUBLE_EQ(cost.attention_efficiency(Pass::Backward, shape),
                   *published_attention_efficiency("h100-sxm", AttentionKernel::FA2, Pass::Backward, true, 128, 4096, 4096));
}

TEST(EfficiencyPrecedence, UnstatedPlateausLeaveTheTableInCharge) {
  const Scenario s = test::load_knob_scenario(test::kSingleGpu, {});
  const EfficiencySources all = efficiency_sources(CostModel(s));
  EXPECT_EQ(source(all, "attention_forward").origin, ValueOrigin::PublishedTable);
  EXPECT_EQ(source(all, "gemm").origin, ValueOrigin::PublishedTable);   // the H100's published GEMM fit
  EXPECT_NE(source(all, "gemm").detail.find("published GEMM fit of h100-sxm"), std::string::npos) << source(all, "gemm").detail;
  // A value that equals the default still counts as stated when the user wrote it.
  const Scenario same = test::load_knob_scenario(test::kSingleGpu, {"cluster.efficiency.attention_forward=0.62"});
  EXPECT_EQ(source(efficiency_sources(CostModel(same)), "attention_forward").origin, ValueOrigin::Override);
  const double table = test::predict_knob(test::kSingleGpu, {}).attention_forward_s;
  const double stated = test::predict_knob(test::kSingleGpu, {"cluster.efficiency.attention_forward=0.62"}).attention_forward_s;
  EXPECT_NE(table, stated);
}

TEST(EfficiencyPrecedence, OverridesAndPresetsAreNamed) {
  const Scenario s = test::load_knob_scenario(test::kTwoNodes, {"cluster.efficiency.gemm=0.5"});
  const EfficiencySources all = efficiency_sources(CostModel(s));
  const EfficiencySource& g = source(all, "gemm");
  EXPECT_EQ(g.origin, ValueOrigin::Override);
  EXPECT_DOUBLE_EQ(g.value, 0.5);
  EXPECT_NE(g.detail.find("override 1 'cluster.efficiency.gemm=0.5'"), std::string::npos) << g.detail;
  const EfficiencySource& inter = source(all, "inter_node_link");
  EXPECT_EQ(inter.origin, ValueOrigin::Default);
  EXPECT_NE(inter.detail.find("cluster preset dgx-h100"), std::string::npos) << inter.detail;
  ASSERT_EQ(all.size(), 9u);
  for (const auto& e : all) EXPECT_GT(e.value, 0) << e.quantity;
}

TEST(EfficiencyPrecedence, AStatedValueWinsOverTheCalibrationFile) {
  const std::string calib = write_temp(
      "hardware: test\nnccl_launch_s: 3.0e-6\n"
      "gemm:\n  - {flops: 1.0e9, efficiency: 0.2}\n  - {flops: 1.0e12, efficiency: 0.8}\n");
  const std::string with_file = std::string(test::kSingleGpu) + "";
  const Scenario measured = test::load_knob_scenario(with_file, {"cluster.calibration=" + calib});
  const CostModel m(measured);
  EXPECT_DOUBLE_EQ(m.gemm_efficiency(1e12), 0.8);
  EXPECT_DOUBLE_EQ(m.scenario().cluster.efficiency.nccl_launch_s, 3.0e-6);
  EXPECT_EQ(source(efficiency_sources(m), "gemm").origin, ValueOrigin::Calibration);
  EXPECT_EQ(source(efficiency_sources(m), "nccl_launch_s").origin, ValueOrigin::Calibration);

  const Scenario stated = test::load_knob_scenario(
      with_file, {"cluster.calibration=" + calib, "cluster.efficiency.gemm=0.6", "cluster.efficiency.nccl_launch=9 us"});
  const CostModel c(stated);
  EXPECT_DOUBLE_EQ(c.gemm_efficiency(1e12), 0.6);           // the stated level ...
  EXPECT_DOUBLE_EQ(c.gemm_efficiency(1e9), 0.6 * 0.2 / 0.8);   // ... with the measured size fall-off
  EXPECT_DOUBLE_EQ(c.scenario().cluster.efficiency.nccl_launch_s, 9e-6);
  EXPECT_EQ(source(efficiency_sources(c), "gemm").origin, ValueOrigin::Override);
  EXPECT_EQ(source(efficiency_sources(c), "nccl_launch_s").origin, ValueOrigin::Override);
  std::remove(calib.c_str());
}

TEST(EfficiencyPrecedence, TheJsonReportCarriesTheSources) {
  const Report r = test::predict_knob(kH800, {"cluster.efficiency.gemm=0.7"});
  const auto j = nlohmann::json::parse(report_to_json(r));
  ASSERT_TRUE(j.contains("efficiency_sources"));
  const auto& list = j["efficiency_sources"];
  ASSERT_EQ(list.size(), 9u);
  EXPECT_EQ(list[0]["quantity"], "attention_forward");
  EXPECT_EQ(list[0]["origin"], "scenario");
  EXPECT_DOUBLE_EQ(list[0]["value"].get<double>(), 0.33);
  EXPECT_EQ(list[2]["quantity"], "gemm");
  EXPECT_EQ(list[2]["origin"], "override");
}

}  // namespace
}  // namespace hcpsim
