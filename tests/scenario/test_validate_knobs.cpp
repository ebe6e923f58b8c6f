// Knobs the model cannot use are refused or warned about by name (docs/scenario.md "Fields the model
// cannot use"): MXFP8 off Blackwell, attention_kernel where no table tells the families apart, the
// fabric topology.
#include "scenario_fixture.h"

namespace hcpsim {
namespace {

using test::kBase;
using test::load;

std::string fp8_scenario(const std::string& gpu, const std::string& recipe) {
  std::string y = kBase;
  const auto at = y.find("  context_parallel_size: 8\n");
  y.insert(at, "  fp8: hybrid\n  fp8_recipe: " + recipe + "\n");   // lines 8 and 9
  return y + "  gpu: " + gpu + "\n";
}

const Diagnostic* with_path(const Diagnostics& d, const std::string& path, Severity sev) {
  for (const auto& x : d.items())
    if (x.path == path && x.severity == sev) return &x;
  return nullptr;
}

TEST(ValidateKnobs, Mxfp8NeedsBlackwell) {
  const Diagnostics d = validate(load(fp8_scenario("h100-sxm", "mxfp8")));
  const Diagnostic* e = with_path(d, "model.fp8_recipe", Severity::Error);
  ASSERT_NE(e, nullptr) << format_diagnostics(d, "t.yaml");
  EXPECT_EQ(e->line, 9);
  EXPECT_NE(e->message.find("needs Blackwell"), std::string::npos) << e->message;
  EXPECT_NE(e->message.find("h100-sxm"), std::string::npos) << e->message;
  EXPECT_FALSE(e->hints.empty());
  EXPECT_EQ(with_path(validate(load(fp8_scenario("b200", "mxfp8"))), "model.fp8_recipe", Severity::Error), nullptr);
  EXPECT_EQ(with_path(validate(load(fp8_scenario("h100-sxm", "delayed"))), "model.fp8_recipe", Severity::Error), nullptr);
}

TEST(ValidateKnobs, AttentionKernelWithoutATableIsNamed) {
  for (const char* gpu : {"b200", "gb200"}) {
    const Diagnostics d = validate(load(std::string(kBase) + "  gpu: " + gpu + "\n",
                                        {"cluster.efficiency.attention_kernel=fa2"}));
    const Diagnostic* w = with_path(d, "cluster.efficiency.attention_kernel", Severity::Warning);
    ASSERT_NE(w, nullptr) << gpu << "\n" << format_diagnostics(d, "t.yaml");
    EXPECT_NE(w->message.find("has no effect on GPU '" + std::string(gpu) + "'"), std::string::npos) << w->message;
  }
  // A100: cudnn and fa3 are priced by FlashAttention-2's table.
  const Diagnostics a100 = validate(load(std::string(kBase) + "  gpu: a100-sxm-80gb\n",
                                         {"cluster.efficiency.attention_kernel=fa3"}));
  EXPECT_NE(with_path(a100, "cluster.efficiency.attention_kernel", Severity::Warning), nullptr)
      << format_diagnostics(a100, "t.yaml");
  // H100 has a table per family: no warning; nor when the family is not stated.
  EXPECT_EQ(with_path(validate(load(kBase, {"cluster.efficiency.attention_kernel=fa2"})),
                      "cluster.efficiency.attention_kernel", Severity::Warning),
            nullptr);
  EXPECT_EQ(with_path(validate(load(std::string(kBase) + "  gpu: b200\n")), "cluster.efficiency.attention_kernel",
                      Severity::Warning),
            nullptr);
  // Blackwell has a cuDNN table: a stated cudnn is used, so no warning.
  EXPECT_EQ(with_path(validate(load(std::string(kBase) + "  gpu: gb200\n", {"cluster.efficiency.attention_kernel=cudnn"})),
                      "cluster.efficiency.attention_kernel", Severity::Warning),
            nullptr);
}

TEST(ValidateKnobs, TopologyIsRefusedOrExplained) {
  const std::vector<std::string> two_nodes = {"cluster.nodes=2", "model.context_parallel_size=16"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> o = two_nodes;
    o.insert(o.end(), more.begin(), more.end());
    return validate(load(kBase, o));
  };
  // A star has no tier to oversubscribe.
  const Diagnostics star_over = with({"cluster.inter_node.topology=star", "cluster.inter_node.oversubscription=4"});
  EXPECT_NE(with_path(star_over, "cluster.inter_node.oversubscription", Severity::Error), nullptr)
      << format_diagnostics(star_over, "t.yaml");
  // The analytic backend says it does not model the topology.
  const Diagnostics analytic = with({"cluster.inter_node.topology=fat-tree", "simulation.backend=analytic"});
  const Diagnostic* a = with_path(analytic, "cluster.inter_node.topology", Severity::Warning);
  ASSERT_NE(a, nullptr) << format_diagnostics(analytic, "t.yaml");
  EXPECT_NE(a->message.find("analytic backend does not model"), std::string::npos) << a->message;
  // SimGrid: a star is predicted as a non-blocking fat-tree, and says so.
  const Diagnostics star = with({"cluster.inter_node.topology=star", "simulation.backend=simgrid"});
  EXPECT_NE(with_path(star, "cluster.inter_node.topology", Severity::Warning), nullptr) << format_diagnostics(star, "t.yaml");
  const Diagnostics fat = with({"cluster.inter_node.topology=fat-tree", "simulation.backend=simgrid"});
  EXPECT_EQ(with_path(fat, "cluster.inter_node.topology", Severity::Warning), nullptr) << format_diagnostics(fat, "t.yaml");
  // The preset's topology is not the user's statement: no warning.
  EXPECT_EQ(with_path(with({"simulation.backend=analytic"}), "cluster.inter_node.topology", Severity::Warning), nullptr);
}

}  // namespace
}  // namespace hcpsim
