// Overrides (`key.path=value`) and hardware presets.
#include "scenario_fixture.h"

namespace hcpsim {
namespace {

using test::find;
using test::kBase;
using test::load;
using test::load_errors;

TEST(Overrides, YamlValuesReplaceFields) {
  const Scenario s = load(kBase, {"model.context_parallel_size=4", "model.cp_comm_type=a2a+p2p",
                                  "model.hierarchical_context_parallel_sizes=[2,2]", "cluster.nodes=2"});
  EXPECT_EQ(s.cp(), 4);
  EXPECT_EQ(s.model.cp_comm_type.at(0), CpCommType::A2AP2P);
  EXPECT_EQ(s.model.hierarchical_context_parallel_sizes, (std::vector<int>{2, 2}));
  EXPECT_EQ(s.cluster.nodes, 2);
  // An overridden field has no YAML position; it names its override.
  EXPECT_EQ(s.location_of("model.context_parallel_size").line, 0);
  EXPECT_EQ(s.location_of("model.context_parallel_size").override_index, 1);
  EXPECT_EQ(s.location_of("model.seq_length").line, 7);
}

TEST(Overrides, CreatesMissingSectionsAndLaterOnesWin) {
  const Scenario s = load(kBase, {"simulation.layers=3", "simulation.layers=2", "cluster.inter_node.latency=7 us"});
  EXPECT_EQ(s.simulation.layers, 2);
  EXPECT_DOUBLE_EQ(s.cluster.inter_node_latency_s, 7e-6);
}

TEST(Overrides, NullRemovesAnOptionalField) {
  std::string y = kBase;
  y.replace(y.find("  context_parallel_size"), 0, "  hierarchical_context_parallel_sizes: [4, 2]\n");
  const Scenario s = load(y, {"model.hierarchical_context_parallel_sizes=null"});
  EXPECT_TRUE(s.model.hierarchical_context_parallel_sizes.empty());
}

TEST(Overrides, UnknownPathIsAnErrorWithSuggestion) {
  auto d = load_errors(kBase, {"model.context_paralel_size=4"});
  const Diagnostic* e = find(d, "unknown field 'model.context_paralel_size'");
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->message.find("<override 1"), std::string::npos);
  EXPECT_EQ(e->line, 0);
  ASSERT_FALSE(e->hints.empty());
  EXPECT_EQ(e->hints[0], "did you mean 'model.context_parallel_size'?");
}

TEST(Overrides, BadValuesNameTheOverride) {
  auto d = load_errors(kBase, {"cluster.nodes=2", "model.context_parallel_size=eight"});
  const Diagnostic* e = find(d, "expected a whole number, got 'eight'");
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->message.find("<override 2: 'model.context_parallel_size=eight'>"), std::string::npos);
  EXPECT_NE(find(load_errors(kBase, {"model.num_layers="}), "no value after '='"), nullptr);
  EXPECT_NE(find(load_errors(kBase, {"model.num_layers=[1,"}), "not valid YAML"), nullptr);
  EXPECT_NE(find(load_errors(kBase, {"noequals"}), "expected key.path=value"), nullptr);
  EXPECT_NE(find(load_errors(kBase, {"name.x=1"}), "unknown field"), nullptr);
}

TEST(Presets, ClusterPresetFillsFieldsAndExplicitOnesWin) {
  const Scenario h = load(kBase);
  EXPECT_EQ(h.cluster.preset, "dgx-h100");
  EXPECT_EQ(h.cluster.gpus_per_node, 8);
  EXPECT_EQ(h.cluster.gpu.name, "h100-sxm");
  EXPECT_DOUBLE_EQ(h.cluster.gpu.bf16_flops, 989e12);
  EXPECT_DOUBLE_EQ(h.cluster.gpu.hbm_Bps, 3.35e12);
  EXPECT_DOUBLE_EQ(h.cluster.intra_node_bandwidth_Bps, 450e9);
  EXPECT_DOUBLE_EQ(h.cluster.nic_bandwidth_Bps, 50e9);   // 400 Gb/s
  const Scenario o = load(std::string(kBase) + "  intra_node: {bandwidth: 900 GB/s}\n  gpu: h200-sxm\n");
  EXPECT_DOUBLE_EQ(o.cluster.intra_node_bandwidth_Bps, 900e9);
  EXPECT_DOUBLE_EQ(o.cluster.intra_node_latency_s, 2e-6);   // still the preset's
  EXPECT_DOUBLE_EQ(o.cluster.gpu.hbm_Bps, 4.8e12);
  EXPECT_DOUBLE_EQ(o.cluster.gpu.memory_bytes, 143771.0 * 1024 * 1024);   // what nvidia-smi reports
}

TEST(Presets, AllFourClusterPresets) {
  const Scenario a = load(kBase, {"cluster.preset=dgx-a100"});
  EXPECT_DOUBLE_EQ(a.cluster.gpu.bf16_flops, 312e12);
  EXPECT_DOUBLE_EQ(a.cluster.nic_bandwidth_Bps, 25e9);
  const Scenario h2 = load(kBase, {"cluster.preset=dgx-h200"});
  EXPECT_DOUBLE_EQ(h2.cluster.gpu.memory_bytes, 143771.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(h2.cluster.gpu.fp8_flops, 1979e12);
  EXPECT_EQ(a.cluster.gpu.fp8_flops, 0.0);   // Ampere: no FP8
  const Scenario g = load(kBase, {"cluster.preset=gb200-nvl72"});
  EXPECT_EQ(g.cluster.gpus_per_node, 72);
  EXPECT_EQ(g.cluster.nics_per_node, 72);
  EXPECT_DOUBLE_EQ(g.cluster.intra_node_bandwidth_Bps, 900e9);
  EXPECT_DOUBLE_EQ(g.cluster.gpu.bf16_flops, 2500e12);
}

TEST(Presets, GpuMapping) {
  const Scenario s = load(std::string(kBase) +
                          "  gpu: {name: my-gpu, bf16_tflops: 500 TFLOPS, hbm_bandwidth: 2 TB/s, memory: 64 GiB}\n");
  EXPECT_EQ(s.cluster.gpu.name, "my-gpu");
  EXPECT_DOUBLE_EQ(s.cluster.gpu.bf16_flops, 500e12);
  EXPECT_DOUBLE_EQ(s.cluster.gpu.memory_bytes, 64.0 * 1073741824.0);
  const Scenario t = load(std::string(kBase) + "  gpu: {name: h200-sxm, memory: 100 GB}\n");   // preset + tweak
  EXPECT_DOUBLE_EQ(t.cluster.gpu.hbm_Bps, 4.8e12);
  EXPECT_DOUBLE_EQ(t.cluster.gpu.memory_bytes, 100e9);
  const Scenario u = load(kBase, {"cluster.gpu.memory=40 GB"});   // tweak the preset's GPU
  EXPECT_EQ(u.cluster.gpu.name, "h100-sxm");
  EXPECT_DOUBLE_EQ(u.cluster.gpu.memory_bytes, 40e9);
  auto d = load_errors(std::string(kBase) + "  gpu: {name: my-gpu, bf16_tflops: 500 TFLOPS}\n");
  EXPECT_NE(find(d, "missing 'hbm_bandwidth'"), nullptr);
  EXPECT_NE(find(d, "missing 'memory'"), nullptr);
}

TEST(Presets, UnknownPresetsListTheValidOnes) {
  auto d = load_errors(kBase, {"cluster.preset=dgx-h300"});
  const Diagnostic* e = find(d, "unknown cluster preset 'dgx-h300'");
  ASSERT_NE(e, nullptr);
  bool listed = false;
  for (const auto& h : e->hints) listed |= h.find("dgx-a100, dgx-h100, dgx-h200, gb200-nvl72") != std::string::npos;
  EXPECT_TRUE(listed);
  auto g = load_errors(kBase, {"cluster.gpu=h100-smx"});
  const Diagnostic* ge = find(g, "unknown GPU preset 'h100-smx'");
  ASSERT_NE(ge, nullptr);
  EXPECT_EQ(ge->hints.at(0), "did you mean 'h100-sxm'?");
}

}  // namespace
}  // namespace hcpsim
