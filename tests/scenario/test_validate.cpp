// Validation rules 1-9 of docs/scenario.md, each with its quoted message and the field it names.
#include "scenario_fixture.h"

namespace hcpsim {
namespace {

using test::find;
using test::kBase;
using test::load;

Diagnostics check(std::vector<std::string> overrides, const std::string& yaml = kBase) {
  return validate(load(yaml, std::move(overrides)));
}

const Diagnostic& expect_error(const Diagnostics& d, const std::string& text, const std::string& path) {
  static const Diagnostic none;
  const Diagnostic* e = find(d, text);
  EXPECT_NE(e, nullptr) << "no diagnostic containing: " << text << "\n" << format_diagnostics(d, "t.yaml");
  if (e == nullptr) return none;
  EXPECT_EQ(e->severity, Severity::Error);
  EXPECT_EQ(e->path, path);
  return *e;
}

TEST(Validate, BaseScenarioIsClean) {
  const auto d = check({});
  EXPECT_TRUE(d.empty()) << format_diagnostics(d, "t.yaml");
}

TEST(Validate, Rule1_WorldSizeDivisible) {
  const auto d = check({"model.tensor_model_parallel_size=2", "model.context_parallel_size=8", "cluster.gpus_per_node=12"});
  const auto& e = expect_error(d, "world_size (12) is not divisible by 16 (tp*cp*pp)", "model.context_parallel_size");
  ASSERT_GE(e.hints.size(), 2u);
  EXPECT_NE(e.hints[1].find("cluster.nodes=4"), std::string::npos);   // 4*12 = 48 = 3*16
}

TEST(Validate, Rule2_HeadsAndTp) {
  auto d = check({"model.num_attention_heads=24", "model.num_query_groups=8", "model.tensor_model_parallel_size=16",
                  "cluster.nodes=2", "model.context_parallel_size=1", "model.kv_channels=128"});
  expect_error(d, "num_attention_heads (24) must be a multiple of tensor_model_parallel_size (16).", "model.num_attention_heads");
  auto g = check({"model.num_query_groups=6", "model.num_attention_heads=48", "model.tensor_model_parallel_size=4",
                  "model.context_parallel_size=2", "model.kv_channels=128"});
  expect_error(g, "num_query_groups (6) must be a multiple or divisor of tensor_model_parallel_size (4).", "model.num_query_groups");
  // g < tp dividing tp is fine: one KV head per TP rank.
  auto ok = check({"model.num_query_groups=2", "model.tensor_model_parallel_size=4", "model.context_parallel_size=2"});
  EXPECT_FALSE(ok.has_errors()) << format_diagnostics(ok, "t.yaml");
}

TEST(Validate, Rule3_HeadsDivisibleByGroups) {
  auto d = check({"model.num_query_groups=5"});
  expect_error(d, "The number of attention heads must be divisible by the number of GQA groups!", "model.num_query_groups");
}

TEST(Validate, Rule4_SeqLength) {
  auto d = check({"model.seq_length=131000"});
  const auto& e = expect_error(d, "seq-length should be a multiple of 2 * context-parallel-size if context-parallel-size > 1.",
                               "model.seq_length");
  EXPECT_EQ(e.line, 0);   // set by an override
  ASSERT_FALSE(e.hints.empty());
  EXPECT_NE(e.hints[0].find("130992 or 131008"), std::string::npos);   // multiples of 16 around 131000
  EXPECT_EQ(find(check({}), "seq-length"), nullptr);
  const auto f = validate(load(std::string(kBase).replace(std::string(kBase).find("131072"), 6, "131071")));
  EXPECT_EQ(find(f, "seq-length")->line, 7);
}

TEST(Validate, DistFlashAttnShardsAndMask) {
  // One chunk per CP rank: a multiple of cp is enough (131064 = 8 x 16383 is not a multiple of 16).
  const auto ok = check({"model.cp_comm_type=dfa", "model.seq_length=131064"});
  EXPECT_FALSE(ok.has_errors()) << format_diagnostics(ok, "t.yaml");
  const auto d = validate(load(std::string(kBase).replace(std::string(kBase).find("131072"), 6, "131071"),
                               {"model.cp_comm_type=dfa"}));
  const auto& e = expect_error(d, "cp_comm_type=dfa splits the sequence into one chunk per CP rank", "model.seq_length");
  EXPECT_EQ(e.line, 7);
  EXPECT_GT(e.column, 0);
  ASSERT_FALSE(e.hints.empty());
  EXPECT_NE(e.hints[0].find("131064 or 131072"), std::string::npos);
  expect_error(check({"model.cp_comm_type=dfa", "model.attn_mask_type=no_mask"}), "balances the blocks of a causal mask",
               "model.cp_comm_type");
  expect_error(check({"model.num_layers=2", "model.cp_comm_type=[dfa, p2p]"}), "cannot be mixed with other comm types",
               "model.cp_comm_type");
  EXPECT_FALSE(check({"model.num_layers=2", "model.cp_comm_type=[dfa, dfa]"}).has_errors());
}

TEST(Validate, Rule5_CommTypeNamesAndListLength) {
  auto d = test::load_errors(kBase, {"model.cp_comm_type=allgather"});
  const Diagnostic* e = find(d, "Unsupported communication type: allgather!");
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->hints.at(0).find("all_gather"), std::string::npos);
  auto l = check({"model.cp_comm_type=[p2p, a2a, p2p]"});
  expect_error(l, "Length of cp_comm_type (3) must equal num_layers (32).", "model.cp_comm_type");
}

TEST(Validate, Rule6_HierarchicalSizes) {
  auto missing = check({"model.cp_comm_type=a2a+p2p"});
  const auto& e = expect_error(missing,
                               "hierarchical_context_parallel_sizes must be set when cp_comm_type contains 'a2a+p2p'. "
                               "Without it, CP communication is silently disabled",
                               "model.hierarchical_context_parallel_sizes");
  EXPECT_NE(e.message.find("set hierarchical_context_parallel_sizes=[8, 2]."), std::string::npos);
  EXPECT_NE(e.hints.at(0).find("[8, 1]"), std::string::npos);   // cp 8, all 8 KV heads fit in a node
  auto product = check({"model.cp_comm_type=a2a+p2p", "model.hierarchical_context_parallel_sizes=[4,4]"});
  expect_error(product, "Product of hierarchical_context_parallel_sizes [4, 4] (=16) must equal context_parallel_size (=8).",
               "model.hierarchical_context_parallel_sizes");
  auto levels = check({"model.cp_comm_type=a2a+p2p", "model.hierarchical_context_parallel_sizes=[2,2,2]"});
  expect_error(levels, "CP implementation a2a+p2p requires cp_group = [a2a_cp_group, p2p_cp_group]!",
               "model.hierarchical_context_parallel_sizes");
}

TEST(Validate, Rule7_A2AHeads) {
  // tp=1, cp=16 over 2 nodes: 8 KV heads cannot split 16 ways.
  auto d = check({"model.cp_comm_type=a2a", "model.context_parallel_size=16", "cluster.nodes=2"});
  const auto& e = expect_error(d,
                               "cp_comm_type='a2a' requires num_heads % cp_size == 0 for Q, K, V. Found num_heads_q = 32, "
                               "num_heads_kv = 8, cp_size = 16.",
                               "model.cp_comm_type");
  ASSERT_FALSE(e.hints.empty());
  EXPECT_NE(e.hints[0].find("largest a2a size that fits is 8"), std::string::npos);
  EXPECT_NE(e.hints[0].find("hierarchical_context_parallel_sizes=[8, 2]"), std::string::npos);
  EXPECT_NE(e.hints[0].find("scaling beyond KV heads"), std::string::npos);
  // a2a+p2p: the a2a size must divide the per-TP-rank heads (tp=2: h_t=16, g_t=4).
  auto h = check({"model.cp_comm_type=a2a+p2p", "model.tensor_model_parallel_size=2",
                  "model.hierarchical_context_parallel_sizes=[8,1]", "cluster.nodes=2"});
  const auto& eh = expect_error(h, "num_heads_kv = 4, a2a_size = 8", "model.hierarchical_context_parallel_sizes");
  EXPECT_NE(eh.hints.at(0).find("hierarchical_context_parallel_sizes=[4, 2]"), std::string::npos);
}

TEST(Validate, Rule8_DecentralizedPg) {
  auto d = check({"dist.use_decentralized_pg=true", "model.cp_comm_type=a2a+p2p",
                  "model.hierarchical_context_parallel_sizes=[4,2]"});
  expect_error(d, "Decentralized process groups (use_decentralized_pg=True) do not support hierarchical_context_parallel_sizes.",
               "dist.use_decentralized_pg");
  EXPECT_FALSE(check({"dist.use_decentralized_pg=true"}).has_errors());
}

TEST(Validate, OrderAndFaultRanges) {
  expect_error(check({"dist.order=tp-dp-cp-pp"}), "unsupported order 'tp-dp-cp-pp'", "dist.order");
  EXPECT_FALSE(check({"dist.order=tp-cp-ep-pp-dp"}).has_errors());
  auto f = check({"cluster.faults=[{rank: 8, slowdown: 2}, {node: 1, nic: 0, failed: true}, {node: 0, nic: 8, bandwidth_factor: 0.5}]"});
  expect_error(f, "rank 8 is out of range", "cluster.faults[0].rank");
  expect_error(f, "node 1 is out of range", "cluster.faults[1].node");
  expect_error(f, "nic 8 is out of range", "cluster.faults[2].nic");
}

const Diagnostic* warning(const Diagnostics& d, const std::string& text) {
  const Diagnostic* w = find(d, text);
  if (w != nullptr) {
    EXPECT_EQ(w->severity, Severity::Warning);
  }
  return w;
}

TEST(Validate, Rule9_Warnings) {
  // a2a group across nodes: tp=1 cp=16 a2a on 2 nodes of 8 with MHA (32 KV heads).
  auto cross = check({"model.cp_comm_type=a2a", "model.context_parallel_size=16", "cluster.nodes=2",
                      "model.num_query_groups=32"});
  EXPECT_FALSE(cross.has_errors());
  ASSERT_NE(warning(cross, "spans 2 nodes"), nullptr);
  EXPECT_NE(find(cross, "spans 2 nodes")->hints.at(0).find("[8, 2]"), std::string::npos);
  // a2a+p2p degenerate levels.
  EXPECT_NE(warning(check({"model.cp_comm_type=a2a+p2p", "model.hierarchical_context_parallel_sizes=[1,8]"}),
                    "runs a2a+p2p as plain p2p"), nullptr);
  EXPECT_NE(warning(check({"model.cp_comm_type=a2a+p2p", "model.hierarchical_context_parallel_sizes=[8,1]"}),
                    "runs a2a+p2p as plain a2a"), nullptr);
  // Small chunks.
  EXPECT_NE(warning(check({"model.seq_length=4096"}), "holds only 512 tokens"), nullptr);
  // All-inter-node rings where a better split exists: MHA, tp=4, [4,2] on 4 nodes -> a2a spans 2
  // nodes and ring [0,16] crosses nodes on both hops; a flat ring would have intra-node hops.
  auto ring = check({"model.num_query_groups=32", "model.tensor_model_parallel_size=4", "cluster.nodes=4",
                     "model.cp_comm_type=a2a+p2p", "model.hierarchical_context_parallel_sizes=[4,2]"});
  EXPECT_NE(warning(ring, "every hop of every ring crosses nodes"), nullptr);
  // Bridge's [8, 2] across 2 nodes is the intended design: no ring warning.
  auto bridge = check({"model.context_parallel_size=16", "cluster.nodes=2", "model.cp_comm_type=a2a+p2p",
                       "model.hierarchical_context_parallel_sizes=[8,2]"});
  EXPECT_TRUE(bridge.empty()) << format_diagnostics(bridge, "t.yaml");
}

}  // namespace
}  // namespace hcpsim
