// Loading: defaults, types, required fields, unknown keys, positions, faults, passes, text checks.
#include <filesystem>
#include <fstream>

#include "scenario_fixture.h"

namespace hcpsim {
namespace {

using test::find;
using test::kBase;
using test::load;
using test::load_errors;

TEST(Loader, DefaultsFromScenarioMd) {
  const Scenario s = load(kBase);
  EXPECT_EQ(s.name, "base");
  EXPECT_EQ(s.tp(), 1);
  EXPECT_EQ(s.pp(), 1);
  EXPECT_EQ(s.cp(), 8);
  ASSERT_EQ(s.model.cp_comm_type.size(), 1u);
  EXPECT_EQ(s.model.cp_comm_type[0], CpCommType::P2P);
  EXPECT_EQ(s.model.attn_mask_type, MaskType::Causal);
  EXPECT_EQ(s.model.params_dtype, DType::BF16);
  EXPECT_FALSE(s.model.sequence_parallel);
  EXPECT_EQ(s.train.micro_batch_size, 1);
  EXPECT_FALSE(s.dist.use_decentralized_pg);
  EXPECT_EQ(s.dist.order, "tp-cp-ep-dp-pp");
  EXPECT_EQ(s.cluster.topology, Topology::FatTree);
  EXPECT_DOUBLE_EQ(s.cluster.oversubscription, 1.0);
  EXPECT_EQ(s.simulation.backend, "simgrid");
  EXPECT_TRUE(s.simulation.forward);
  EXPECT_TRUE(s.simulation.backward);
  EXPECT_EQ(s.simulation.layers, 1);
  EXPECT_EQ(s.model.num_query_groups, 8);
  EXPECT_EQ(s.head_dim(), 128);   // hidden / heads
}

TEST(Loader, NicsPerNodeDefaultsToGpusPerNode) {
  const Scenario s = load("name: x\nmodel: {num_layers: 2, hidden_size: 64, num_attention_heads: 4, seq_length: 64}\n"
                          "cluster: {gpus_per_node: 4, nodes: 2}\n");
  EXPECT_EQ(s.cluster.nics_per_node, 4);
  EXPECT_EQ(s.world_size(), 8);
  EXPECT_EQ(s.model.num_query_groups, 4);   // defaults to num_attention_heads
}

TEST(Loader, RecordsLinesAndColumns) {
  const Scenario s = load(kBase);
  EXPECT_EQ(s.location_of("model.seq_length").line, 7);
  EXPECT_EQ(s.location_of("model.seq_length").column, 3);
  EXPECT_EQ(s.location_of("cluster.preset").line, 10);
  // A field not in the file points at its section.
  EXPECT_EQ(s.location_of("model.cp_comm_type").line, 2);
}

TEST(Loader, ListItemsAndFaults) {
  const Scenario s = load(std::string(kBase) +
                          "  faults:\n"
                          "    - { rank: 3, slowdown: 1.3 }\n"
                          "    - { node: 0, nic: 5, bandwidth_factor: 0.5 }\n"
                          "    - { node: 0, nic: 1, failed: true }\n");
  ASSERT_EQ(s.cluster.faults.size(), 3u);
  EXPECT_EQ(s.cluster.faults[0].kind, Fault::Kind::Straggler);
  EXPECT_DOUBLE_EQ(s.cluster.faults[0].slowdown, 1.3);
  EXPECT_EQ(s.cluster.faults[1].kind, Fault::Kind::DegradedNic);
  EXPECT_DOUBLE_EQ(s.cluster.faults[1].bandwidth_factor, 0.5);
  EXPECT_EQ(s.cluster.faults[2].kind, Fault::Kind::FailedNic);
  EXPECT_EQ(s.location_of("cluster.faults[1].nic").line, 13);
  EXPECT_EQ(s.location_of("cluster.faults[2]").line, 14);
  EXPECT_EQ(s.location_of("cluster.faults[2]").column, 7);
}

TEST(Loader, FaultValueRanges) {
  auto d = load_errors(std::string(kBase) + "  faults: [{rank: 1, slowdown: 0.9}, {node: 0, nic: 1, bandwidth_factor: 0}]\n");
  EXPECT_EQ(d.error_count(), 2u);
  EXPECT_EQ(d.items()[0].path, "cluster.faults[0].slowdown");
  EXPECT_EQ(d.items()[1].path, "cluster.faults[1].bandwidth_factor");
}

TEST(Loader, PassesAndBackend) {
  const Scenario s = load(std::string(kBase) + "simulation: {backend: analytic, passes: [forward], layers: 2}\n");
  EXPECT_EQ(s.simulation.backend, "analytic");
  EXPECT_TRUE(s.simulation.forward);
  EXPECT_FALSE(s.simulation.backward);
  EXPECT_EQ(s.simulation.layers, 2);
  auto d = load_errors(std::string(kBase) + "simulation: {passes: [forward, sideways]}\n");
  ASSERT_NE(find(d, "unknown pass 'sideways'"), nullptr);
  EXPECT_EQ(find(d, "unknown pass")->path, "simulation.passes[1]");
}

TEST(Loader, CollectsEveryError) {
  auto d = load_errors("name: Bad Name\nmodel:\n  num_layers: -1\n  hidden_size: big\n  num_attention_heads: 32\n"
                       "  seq_length: 1024\n  colour: red\ncluster: {preset: dgx-h100, nodes: 0}\n");
  EXPECT_GE(d.error_count(), 5u);
  EXPECT_NE(find(d, "may only use"), nullptr);
  EXPECT_NE(find(d, "must be positive, got -1"), nullptr);
  EXPECT_NE(find(d, "expected a whole number, got 'big'"), nullptr);
  EXPECT_NE(find(d, "unknown key 'colour'"), nullptr);
  EXPECT_NE(find(d, "must be positive, got 0"), nullptr);
}

TEST(Loader, UnknownKeySuggestsTheClosest) {
  auto d = load_errors(std::string(kBase) + "  intra_node: {bandwith: 450 GB/s}\n");
  const Diagnostic* e = find(d, "unknown key 'bandwith'");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->path, "cluster.intra_node.bandwith");
  EXPECT_EQ(e->line, 11);
  ASSERT_FALSE(e->hints.empty());
  EXPECT_EQ(e->hints[0], "did you mean 'bandwidth'?");
}

TEST(Loader, BareNumberWhereAUnitIsNeeded) {
  auto d = load_errors(std::string(kBase) + "  inter_node: {latency: 5}\n");
  const Diagnostic* e = find(d, "has no unit");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->path, "cluster.inter_node.latency");
  EXPECT_NE(e->message.find("ns, us, ms, s"), std::string::npos);
  EXPECT_EQ(e->line, 11);
}

TEST(Loader, RequiredFields) {
  auto d = load_errors("name: x\nmodel: {num_layers: 2}\n");
  EXPECT_NE(find(d, "missing required field 'hidden_size'"), nullptr);
  EXPECT_NE(find(d, "missing required field 'num_attention_heads'"), nullptr);
  EXPECT_NE(find(d, "missing required field 'seq_length'"), nullptr);
  auto d2 = load_errors("model: {num_layers: 2, hidden_size: 8, num_attention_heads: 1, seq_length: 8}\n");
  EXPECT_NE(find(d2, "missing required field 'name'"), nullptr);
}

TEST(Loader, TextProblems) {
  auto syntax = load_errors("name: x\nmodel: [1, 2\n");
  ASSERT_EQ(syntax.items().size(), 1u);
  EXPECT_NE(syntax.items()[0].message.find("YAML syntax error"), std::string::npos);
  EXPECT_GT(syntax.items()[0].line, 0);
  auto utf = load_errors("name: x\nmodel: \xC3\x28\n");
  EXPECT_EQ(utf.items()[0].line, 2);
  EXPECT_EQ(utf.items()[0].column, 8);
  EXPECT_NE(utf.items()[0].message.find("not valid UTF-8"), std::string::npos);
  EXPECT_NE(find(load_errors("   \n\n"), "empty"), nullptr);
  EXPECT_NE(find(load_errors("# only a comment\n"), "no YAML content"), nullptr);
  EXPECT_NE(find(load_errors("- 1\n- 2\n"), "expected a mapping"), nullptr);
  EXPECT_NE(find(load_errors(std::string(kBase) + "---\nname: y\n"), "YAML documents"), nullptr);
  EXPECT_NE(find(load_errors(std::string("name: x\nname: y\n") + (kBase + 11)), "duplicate key 'name'"), nullptr);
}

TEST(Loader, FileErrors) {
  namespace fs = std::filesystem;
  auto errors_of = [](const std::string& path) {
    try {
      load_scenario_file(path, test::opts());
    } catch (const ScenarioError& e) {
      return e.diagnostics().items().at(0).message;
    }
    return std::string("no error");
  };
  EXPECT_NE(errors_of("/definitely/not/here.yaml").find("no such file"), std::string::npos);
  EXPECT_NE(errors_of(fs::temp_directory_path().string()).find("is a directory"), std::string::npos);
  const fs::path empty = fs::temp_directory_path() / "hcpsim_test_empty.yaml";
  { std::ofstream(empty.string()); }
  EXPECT_NE(errors_of(empty.string()).find("empty"), std::string::npos);
  fs::remove(empty);
}

TEST(Loader, CalibrationPathIsRelativeToTheFile) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "hcpsim_test_calib";
  fs::create_directories(dir);
  const fs::path f = dir / "s.yaml";
  { std::ofstream(f.string()) << kBase << "  calibration: calib/h100.yaml\n"; }
  const Scenario s = load_scenario_file(f.string(), test::opts());
  EXPECT_EQ(s.cluster.calibration_path, (dir / "calib/h100.yaml").string());
  fs::remove_all(dir);
}

TEST(Loader, CommTypeList) {
  std::string y = kBase;
  y.replace(y.find("  context_parallel_size: 8\n"), 0,
            "  cp_comm_type: [a2a, p2p, all_gather, a2a+p2p]\n  hierarchical_context_parallel_sizes: [4, 2]\n");
  const Scenario s = load(y);
  ASSERT_EQ(s.model.cp_comm_type.size(), 4u);
  EXPECT_EQ(s.comm_type_for_layer(2), CpCommType::AllGather);
  EXPECT_EQ(s.comm_type_for_layer(3), CpCommType::A2AP2P);
  // List items are recorded as a.b[i]: "  cp_comm_type: [a2a, p2p, all_gather" -> item 2 at column 28.
  EXPECT_EQ(s.location_of("model.cp_comm_type[2]").line, 8);
  EXPECT_EQ(s.location_of("model.cp_comm_type[2]").column, 28);
  EXPECT_EQ(s.location_of("model.hierarchical_context_parallel_sizes[1]").line, 9);
}

TEST(Loader, ElementwiseOpsAndParameterSharding) {
  const Scenario d = load(kBase);   // defaults: priced as fused (Megatron-Core's TE layer spec), not sharded
  EXPECT_EQ(d.model.elementwise_ops, ElementwiseOps::Fused);
  EXPECT_FALSE(d.ddp.shard_parameters);
  const Scenario s = load(kBase, {"model.elementwise_ops=unfused", "ddp.shard_parameters=true"});
  EXPECT_EQ(s.model.elementwise_ops, ElementwiseOps::Unfused);
  EXPECT_STREQ(to_string(s.model.elementwise_ops), "unfused");
  EXPECT_TRUE(s.ddp.shard_parameters);
  EXPECT_EQ(load(kBase, {"model.elementwise_ops=fused"}).model.elementwise_ops, ElementwiseOps::Fused);
  // A bad value names the field, where it is, and the valid values.
  std::string y = kBase;
  y.replace(y.find("  context_parallel_size: 8\n"), 0, "  elementwise_ops: eager\n");
  const Diagnostics e = load_errors(y);
  const Diagnostic* x = find(e, "invalid value 'eager'");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->path, "model.elementwise_ops");
  EXPECT_EQ(x->line, 8);
  EXPECT_NE(x->message.find("none, fused, unfused"), std::string::npos) << x->message;
  EXPECT_NE(find(load_errors(kBase, {"ddp.shard_parameters=maybe"}), "shard_parameters"), nullptr);
}

}  // namespace
}  // namespace hcpsim
