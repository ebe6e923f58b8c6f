// `hcpsim sweep` rows, like `hcpsim plan` layouts, come in the forms a team runs: the JSON rows and
// the files of --emit DIR give each point as a ready scenario, as overrides, as Megatron-LM arguments
// and as Bridge overrides, with a warning naming what the last two cannot express.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "engine/planning/megatron_import.h"
#include "engine/planning/memory_fit.h"
#include "engine/scenario/loader.h"
#include "tests/cli/run_command.h"

namespace hcpsim {
namespace {

const std::string kExample = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml";

std::string scratch(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("hcpsim-forms-" + std::to_string(::getpid()) + "-" + name)).string();
}

const std::string kSweep = "sweep '" + kExample + "' simulation.backend=analytic "
                           "--vary model.recompute_granularity=selective_op,full -j 1";

TEST(LayoutFormsCli, SweepJsonRowsGiveEveryForm) {
  const test::RunResult r = test::run_hcpsim(kSweep + " --format json", scratch("json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("points").size(), 2u);
  int op_level = 0;
  for (const nlohmann::json& p : j.at("points")) {
    const auto overrides = p.at("scenario_overrides").get<std::vector<std::string>>();
    const auto args = p.at("megatron_arguments").get<std::vector<std::string>>();
    const auto warnings = p.at("warnings").get<std::vector<std::string>>();
    ASSERT_TRUE(p.contains("bridge_overrides"));
    LoadOptions lo;
    lo.overrides = overrides;
    const Scenario s = load_scenario_file(kExample, lo);   // the overrides give back the point
    // The Megatron-LM arguments import to the point's layout.
    const planning::MegatronImport im = planning::import_megatron(args, {"dgx-h100", s.cluster.nodes, 0, "i"});
    const Scenario back = load_scenario_string(im.yaml);
    EXPECT_EQ(back.tp(), s.tp());
    EXPECT_EQ(back.cp(), s.cp());
    EXPECT_EQ(back.model.cp_comm_type, s.model.cp_comm_type);
    if (s.model.recompute_granularity == RecomputeGranularity::SelectiveOp) {
      ++op_level;
      ASSERT_EQ(warnings.size(), 1u);
      EXPECT_NE(warnings[0].find("model.recompute_granularity: selective_op"), std::string::npos);
    } else {
      EXPECT_TRUE(warnings.empty());
      EXPECT_EQ(back.model.recompute_granularity, s.model.recompute_granularity);
    }
  }
  EXPECT_EQ(op_level, 1);
}

TEST(LayoutFormsCli, SweepEmitWritesEachPointAsReadyFiles) {
  const std::string dir = scratch("emit");
  const test::RunResult r = test::run_hcpsim(kSweep + " --emit '" + dir + "'", scratch("emit-run"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("point-1: warning: model.recompute_granularity: selective_op"), std::string::npos) << r.err;
  for (const char* k : {"1", "2"}) {
    const std::string stem = dir + "/point-" + k;
    for (const char* ext : {".yaml", ".overrides", ".megatron.sh", ".bridge"})
      EXPECT_TRUE(std::filesystem::exists(stem + ext)) << stem << ext;
    LoadOptions lo;
    lo.overrides = {"simulation.backend=analytic",
                    std::string("model.recompute_granularity=") + (k == std::string("1") ? "selective_op" : "full")};
    const Scenario want = load_scenario_file(kExample, lo);
    const Scenario file = load_scenario_file(stem + ".yaml");
    EXPECT_TRUE(planning::changed_overrides(want, file).empty()) << stem;
  }
  EXPECT_TRUE(std::filesystem::exists(dir + "/point-1.warnings"));    // selective_op
  EXPECT_FALSE(std::filesystem::exists(dir + "/point-2.warnings"));   // full: Megatron has it
  EXPECT_NE(test::read_file(dir + "/point-1.megatron.sh").find("# warning: model.recompute_granularity"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(LayoutFormsCli, PlanJsonRowsCarryTheirWarnings) {
  const test::RunResult r =
      test::run_hcpsim("plan '" + kExample + "' ddp.shard_parameters=true --top 2 --threads 1 --format json", scratch("plan"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j.at("best").empty());
  for (const nlohmann::json& b : j.at("best")) {
    const auto w = b.at("warnings").get<std::vector<std::string>>();
    ASSERT_FALSE(w.empty());
    EXPECT_EQ(w[0].rfind("ddp.shard_parameters:", 0), 0u) << w[0];
  }
}

}  // namespace
}  // namespace hcpsim
