// Golden reports: scenarios/<name>.yaml -> analytic backend -> text report, compared byte for byte
// with scenarios/expected/<name>.analytic.txt. HCPSIM_REGEN_GOLDEN=1 rewrites the files instead.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/analytic/analytic_backend.h"
#include "engine/app/simulate.h"
#include "engine/scenario/loader.h"

namespace hcpsim {
namespace {

namespace fs = std::filesystem;

const fs::path kScenarios = fs::path(HCPSIM_SOURCE_DIR) / "scenarios";

std::vector<std::string> scenario_names() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kScenarios))
    if (e.is_regular_file() && e.path().extension() == ".yaml") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string golden_text(const std::string& name) {
  Scenario s = load_scenario_file((kScenarios / (name + ".yaml")).string());
  s.simulation.backend = "analytic";
  AnalyticBackend backend;
  const SimulationResult r = simulate_scenario(s, backend);
  return report_to_text(r.report);
}

class GoldenReport : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenReport, MatchesExpectedFile) {
  const std::string name = GetParam();
  const fs::path expected_path = kScenarios / "expected" / (name + ".analytic.txt");
  const std::string actual = golden_text(name);
  if (std::getenv("HCPSIM_REGEN_GOLDEN")) {
    fs::create_directories(expected_path.parent_path());
    std::ofstream(expected_path) << actual;
    std::cout << "rewrote " << expected_path.string() << "\n";   // regeneration mode
    return;
  }
  std::ifstream in(expected_path);
  ASSERT_TRUE(in) << "missing " << expected_path << " (build the regen-golden target, then review it)";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "report of " << name << " changed; if intended, regenerate and review";
}

INSTANTIATE_TEST_SUITE_P(Scenarios, GoldenReport, ::testing::ValuesIn(scenario_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string n = p.param;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

// The Perfetto trace of an example scenario: every task once, with the documented fields.
TEST(ExampleTrace, PerfettoSchema) {
  Scenario s = load_scenario_file((kScenarios / "llama3-8b-64k-dgx-h100-p2p.yaml").string());
  AnalyticBackend backend;
  const SimulationResult r = simulate_scenario(s, backend);
  std::ostringstream os;
  write_chrome_trace(r.trace, os);
  const auto j = nlohmann::json::parse(os.str());
  ASSERT_TRUE(j.contains("traceEvents"));
  std::size_t complete = 0;
  std::set<std::string> thread_names;
  std::set<long> tasks;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M") {
      if (e["name"] == "thread_name") thread_names.insert(e["args"]["name"].get<std::string>());
      continue;
    }
    ASSERT_EQ(e["ph"], "X");
    ++complete;
    for (const char* k : {"name", "cat", "pid", "tid", "ts", "dur", "args"}) ASSERT_TRUE(e.contains(k)) << k;
    const auto& a = e["args"];
    for (const char* k : {"task", "layer", "pass"}) ASSERT_TRUE(a.contains(k)) << k;
    EXPECT_GE(e["dur"].get<double>(), 0.0);
    const int rank = e["tid"].get<int>() / kStreamCount;   // format 2: rank and stream are the thread
    EXPECT_EQ(e["pid"].get<int>(), rank / s.cluster.gpus_per_node);
    tasks.insert(a["task"].get<long>());
    if (e["cat"] == "send_recv") {
      ASSERT_TRUE(a.contains("peers"));
      EXPECT_FALSE(a["peers"].empty());
      EXPECT_GT(a["bytes"].get<double>(), 0.0);
    }
  }
  EXPECT_EQ(complete, r.tasks);
  EXPECT_EQ(tasks.size(), r.tasks);
  EXPECT_TRUE(thread_names.count("rank 0 main"));
  EXPECT_TRUE(thread_names.count("rank 7 nccl:p2p"));
}

}  // namespace
}  // namespace hcpsim
