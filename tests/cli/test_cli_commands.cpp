// hcpsim validate / layout on the shipped scenarios, the layout JSON contract, help and version.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/layout/rank_layout.h"
#include "engine/scenario/loader.h"
#include "run_command.h"
#include "tests/support/example_scenarios.h"

namespace hcpsim {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> scenario_files() { return test::example_scenario_files(); }

std::string scratch(const std::string& tag) {
  return (fs::temp_directory_path() / ("hcpsim_cli_" + tag + "_" + std::to_string(::getpid()))).string();
}

TEST(CliScenarios, AtLeastNineShippedScenarios) { EXPECT_GE(scenario_files().size(), 9u); }

TEST(CliScenarios, ValidateAcceptsEveryShippedScenario) {
  for (const auto& f : scenario_files()) {
    const auto r = test::run_hcpsim("validate '" + f + "'", scratch("v"));
    EXPECT_EQ(r.exit_code, 0) << f << "\n" << r.err;
    EXPECT_EQ(r.err.find("error:"), std::string::npos) << f << "\n" << r.err;
    // The name field matches the file name, so scenarios can be found by name.
    EXPECT_NE(r.out.find(fs::path(f).stem().string()), std::string::npos) << r.out;
  }
}

// Every comm type has a shipped example: Megatron's four and DistFlashAttn's schedule.
TEST(CliScenarios, ShippedScenariosCoverEveryCommType) {
  std::set<CpCommType> seen;
  LoadOptions o;
  o.hardware_dir = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/hardware";
  for (const auto& f : scenario_files())
    for (CpCommType t : load_scenario_file(f, o).model.cp_comm_type) seen.insert(t);
  for (CpCommType t : {CpCommType::P2P, CpCommType::A2A, CpCommType::AllGather, CpCommType::A2AP2P, CpCommType::DistFlashAttn})
    EXPECT_TRUE(seen.count(t)) << "no shipped scenario uses " << to_string(t);
}

// Checks one layout JSON against the contract and against RankLayout built from the same scenario.
void check_layout_json(const std::string& file) {
  const auto r = test::run_hcpsim("layout '" + file + "' --format json", scratch("l"));
  ASSERT_EQ(r.exit_code, 0) << file << "\n" << r.err;
  const auto j = nlohmann::json::parse(r.out);
  LoadOptions o;
  o.hardware_dir = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/hardware";
  const Scenario s = load_scenario_file(file, o);
  const RankLayout L = RankLayout::from_scenario(s);
  ASSERT_EQ(j.at("world_size").get<int>(), s.world_size());
  EXPECT_EQ(j.at("order").get<std::string>(), s.dist.order);
  const bool hier = !s.model.hierarchical_context_parallel_sizes.empty();
  std::vector<std::string> keys{"tp", "cp", "dp", "pp", "dp_cp", "tp_cp"};
  if (hier) keys.insert(keys.end(), {"hcp_a2a", "hcp_p2p"});
  if (s.hyperparallel_cp()) {   // HyperParallel's sub-groups, and the mesh object
    keys.insert(keys.end(), {"hp_ulysses", "hp_colossal"});
    const int u = s.hyperparallel.ulysses(s.cp());
    EXPECT_EQ(j.at("hyperparallel").at("ulysses_degree").get<int>(), u) << file;
    EXPECT_EQ(j.at("groups").at("hp_ulysses").at(0).size(), static_cast<std::size_t>(u)) << file;
    EXPECT_EQ(j.at("groups").at("hp_colossal").at(0).size(), static_cast<std::size_t>(s.cp() / u)) << file;
  } else {
    EXPECT_FALSE(j.contains("hyperparallel")) << file;
  }
  EXPECT_EQ(j.at("groups").size(), keys.size());
  for (const auto& k : keys) {
    const auto& groups = j.at("groups").at(k);
    std::vector<int> count(static_cast<std::size_t>(s.world_size()), 0);
    for (const auto& g : groups) {
      const auto v = g.get<std::vector<int>>();
      EXPECT_TRUE(std::is_sorted(v.begin(), v.end())) << k;
      for (int x : v) ++count.at(static_cast<std::size_t>(x));
    }
    for (int c : count) EXPECT_EQ(c, 1) << file << " " << k;   // every rank once per kind
  }
  ASSERT_EQ(j.at("ranks").size(), static_cast<std::size_t>(s.world_size()));
  for (int r2 = 0; r2 < s.world_size(); ++r2) {
    const auto& e = j.at("ranks").at(static_cast<std::size_t>(r2));
    for (const char* k : {"rank", "node", "gpu", "tp", "cp", "dp", "pp", "a2a", "ring"}) ASSERT_TRUE(e.contains(k)) << k;
    EXPECT_EQ(e["rank"], r2);
    EXPECT_EQ(e["node"], r2 / s.cluster.gpus_per_node);
    EXPECT_EQ(e["gpu"], r2 % s.cluster.gpus_per_node);
    EXPECT_EQ(e["tp"], r2 % s.tp());                  // tp is the stride-1 axis in both orders
    EXPECT_EQ(e["cp"], (r2 / s.tp()) % s.cp());       // cp comes right after tp in both orders
  }
}

TEST(CliScenarios, LayoutJsonFollowsTheContract) {
  for (const auto& f : scenario_files()) check_layout_json(f);
}

TEST(CliLayout, TextShowsGroupNamesNodeMapAndRings) {
  const std::string f = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/llama3-70b-128k-dgx-h100-hcp.yaml";
  const auto r = test::run_hcpsim("layout '" + f + "'", scratch("t"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"TENSOR_MODEL_PARALLEL_GROUP", "CONTEXT_PARALLEL_GROUP", "HIERARCHICAL_CONTEXT_PARALLEL_GROUP_L0",
                        "HIERARCHICAL_CONTEXT_PARALLEL_GROUP_L1", "node 3:", "a2a 0:0",
                        // tp=2, A=4: ring 0 is CP indices 0,4,8,12 = global 0,8,16,24, one per node.
                        "ring 0: r0(n0) -> r8(n1) -> r16(n2) -> r24(n3) -> r0   [0 intra, 4 inter hops]"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

TEST(CliLayout, LargeWorldSummarises) {
  const std::string f = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/llama3-405b-128k-dgx-h100-p2p.yaml";
  const auto r = test::run_hcpsim("layout '" + f + "' cluster.nodes=512 model.seq_length=1048576", scratch("big"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("world_size 4096"), std::string::npos);
  EXPECT_NE(r.out.find("more nodes"), std::string::npos);
  EXPECT_LT(r.out.size(), 30000u);
}

TEST(CliHelp, HelpVersionAndExamples) {
  const auto v = test::run_hcpsim("--version", scratch("ver"));
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_NE(v.out.find(HCPSIM_VERSION), std::string::npos);
  for (const char* cmd : {"validate", "layout"}) {
    const auto h = test::run_hcpsim(std::string(cmd) + " --help", scratch("h"));
    EXPECT_EQ(h.exit_code, 0);
    EXPECT_NE(h.out.find("Examples:"), std::string::npos) << cmd;
    EXPECT_NE(h.out.find(std::string("hcpsim ") + cmd + " scenarios/"), std::string::npos) << cmd;
  }
}

TEST(CliValidate, WarningsKeepExitZero) {
  const std::string f = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml";
  const auto r = test::run_hcpsim("validate '" + f + "' model.seq_length=4096", scratch("w"));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("warning: model.seq_length: <override 1> each CP rank holds only 512 tokens"), std::string::npos) << r.err;
}

TEST(CliSimulate, VerboseTimesEachStage) {
  const std::string f = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml";
  const auto verbose = test::run_hcpsim("-v simulate '" + f + "' --backend analytic", scratch("v"));
  EXPECT_EQ(verbose.exit_code, 0) << verbose.err;
  for (const char* stage : {"build graph", "run", "event view", "report", "memory and step"})
    EXPECT_NE(verbose.err.find(std::string("  time: ") + stage + ' '), std::string::npos) << stage << '\n' << verbose.err;
  EXPECT_NE(verbose.err.find(" s\n"), std::string::npos) << verbose.err;
  const auto plain = test::run_hcpsim("simulate '" + f + "' --backend analytic", scratch("nv"));
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.err.find("time:"), std::string::npos) << plain.err;
}

TEST(CliSimulate, VerboseListsTheEfficiencySources) {
  const std::string f = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml";
  const auto r = test::run_hcpsim("simulate -v '" + f + "' --backend analytic cluster.efficiency.attention_backward=0.4",
                                  scratch("src"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("efficiency sources"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("  attention_forward "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("from published table (FlashAttention-3 paper"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("  attention_backward 0.4 from override (override 1 'cluster.efficiency.attention_backward=0.4'"),
            std::string::npos)
      << r.err;
  for (const char* q : {"  gemm ", " from published table (published GEMM fit of h100-sxm", "  memory ", "  intra_node_link ", "  inter_node_link "})
    EXPECT_NE(r.err.find(q), std::string::npos) << q << '\n' << r.err;
}

}  // namespace
}  // namespace hcpsim

namespace hcpsim {
namespace {

TEST(CliPlan, AnalyticNotesThatNicSharingIsNotPriced) {
  const std::string f = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml";
  const char* note = "backend analytic does not share links between concurrent flows";
  const auto two_nodes = test::run_hcpsim("plan '" + f + "' --gpus 16 --top 1", scratch("plan16"));
  EXPECT_EQ(two_nodes.exit_code, 0) << two_nodes.err;
  EXPECT_NE(two_nodes.out.find(note), std::string::npos) << two_nodes.out;
  const auto one_node = test::run_hcpsim("plan '" + f + "' --gpus 8 --top 1", scratch("plan8"));
  EXPECT_EQ(one_node.exit_code, 0) << one_node.err;
  EXPECT_EQ(one_node.out.find(note), std::string::npos) << one_node.out;   // one node: no NIC to share
}

}  // namespace
}  // namespace hcpsim
