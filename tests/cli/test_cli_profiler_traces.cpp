// hcpsim compare and calibrate --from-trace on PyTorch profiler traces (the stored Megatron-shaped
// run tests/data/measured/megatron-llama3-8b-64k-p2p: forward attention 1.3x, send/recv 1.2x the
// predicted kernel times), and their errors on bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "run_command.h"

namespace hcpsim {
namespace {

namespace fs = std::filesystem;

const std::string kScenario = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml";
const std::string kRun = std::string(HCPSIM_SOURCE_DIR) + "/tests/data/measured/megatron-llama3-8b-64k-p2p";

std::string scratch(const std::string& tag) {
  return (fs::temp_directory_path() / ("hcpsim_cli_profiles_" + tag + "_" + std::to_string(::getpid()))).string();
}

double mean_kernel_error(const nlohmann::json& j, const char* kind) {
  return j.at("by_kind").at(kind).at("mean_kernel_rel_error").get<double>();
}

TEST(CliProfilerTraces, CompareCalibrateAndPredictAgain) {
  const std::string pred = scratch("pred") + ".json", pred2 = scratch("pred2") + ".json", calib = scratch("calib") + ".yaml";
  const auto sim = test::run_hcpsim("simulate '" + kScenario + "' --backend analytic --trace '" + pred + "'", scratch("s"));
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  const auto c = test::run_hcpsim("compare '" + pred + "' '" + kRun + "' --format json", scratch("c"));
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const auto j = nlohmann::json::parse(c.out);
  EXPECT_EQ(j.at("measured_steps").get<int>(), 2);
  EXPECT_NEAR(mean_kernel_error(j, "attention_forward"), 1 / 1.3 - 1, 1e-3);
  EXPECT_NEAR(mean_kernel_error(j, "gemm"), 0, 1e-3);
  EXPECT_EQ(j.at("ranks").size(), 8u);

  const auto cal = test::run_hcpsim("calibrate '" + kScenario + "' --from-trace '" + kRun + "' --out '" + calib + "'", scratch("k"));
  ASSERT_EQ(cal.exit_code, 0) << cal.err;
  // 8 ranks x 2 steps x 2 layers x (8 forward + 8 backward) attention kernels.
  EXPECT_NE(cal.out.find("filled attention from 512 kernels"), std::string::npos) << cal.out;
  const auto again = test::run_hcpsim("simulate '" + kScenario + "' --backend analytic cluster.calibration='" + calib +
                                          "' --trace '" + pred2 + "'", scratch("s2"));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const auto c2 = test::run_hcpsim("compare '" + pred2 + "' '" + kRun + "' --format json", scratch("c2"));
  ASSERT_EQ(c2.exit_code, 0) << c2.err;
  EXPECT_LT(std::abs(mean_kernel_error(nlohmann::json::parse(c2.out), "attention_forward")), 0.02);
  for (const auto& f : {pred, pred2, calib}) fs::remove(f);
}

TEST(CliProfilerTraces, BadInputIsNamed) {
  const std::string pred = scratch("p") + ".json";
  ASSERT_EQ(test::run_hcpsim("simulate '" + kScenario + "' --backend analytic --trace '" + pred + "'", scratch("s")).exit_code, 0);
  const std::string junk = scratch("junk") + ".json";
  std::ofstream(junk) << "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1,";
  const auto c = test::run_hcpsim("compare '" + pred + "' '" + junk + "'", scratch("c"));
  EXPECT_EQ(c.exit_code, 1);
  EXPECT_NE(c.err.find(junk), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("not a complete JSON document"), std::string::npos) << c.err;
  const auto no_scenario = test::run_hcpsim("calibrate --from-trace '" + kRun + "'", scratch("k"));
  EXPECT_EQ(no_scenario.exit_code, 2);
  EXPECT_NE(no_scenario.err.find("needs the scenario FILE"), std::string::npos) << no_scenario.err;
  const auto rules = test::run_hcpsim("compare '" + pred + "' '" + kRun + "' --kernel-rules '" + junk + "'", scratch("r"));
  EXPECT_EQ(rules.exit_code, 1);
  EXPECT_NE(rules.err.find(junk + ":1: error: kernel rules"), std::string::npos) << rules.err;
  fs::remove(pred);
  fs::remove(junk);
}

}  // namespace
}  // namespace hcpsim
