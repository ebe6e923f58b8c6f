// The `hyperparallel:` section and model.dsa: one bad input per constraint of HyperParallel's CP
// guide, each with its message, the field it names, its FILE:LINE:COL position and its hints.
#include "scenario_fixture.h"

#include "engine/validate/validate_hyperparallel.h"

namespace hcpsim {
namespace {

using test::find;
using test::load;
using test::load_errors;

// Llama-3-8B-like (32 query heads, 8 KV heads), cp=8 on one DGX H100, HyperParallel section at line 11.
const std::string kHp =
    "name: hp\n"                           // 1
    "model:\n"                             // 2
    "  num_layers: 32\n"                   // 3
    "  hidden_size: 4096\n"                // 4
    "  num_attention_heads: 32\n"          // 5
    "  num_query_groups: 8\n"              // 6
    "  seq_length: 131072\n"               // 7
    "  context_parallel_size: 8\n"         // 8
    "cluster:\n"                           // 9
    "  preset: dgx-h100\n"                 // 10
    "hyperparallel:\n";                    // 11

Diagnostics check(const std::string& extra, std::vector<std::string> overrides = {}, const std::string& base = kHp) {
  return validate(load(base + extra, std::move(overrides)));
}

const Diagnostic& expect_diag(const Diagnostics& d, Severity sev, const std::string& text, const std::string& path) {
  static const Diagnostic none;
  const Diagnostic* e = find(d, text);
  EXPECT_NE(e, nullptr) << "no diagnostic containing: " << text << "\n" << format_diagnostics(d, "t.yaml");
  if (e == nullptr) return none;
  EXPECT_EQ(e->severity, sev);
  EXPECT_EQ(e->path, path);
  return *e;
}

bool any_hint(const Diagnostic& d, const std::string& text) {
  for (const auto& h : d.hints)
    if (h.find(text) != std::string::npos) return true;
  return false;
}

TEST(ValidateHyperParallel, ValidModesAreClean) {
  for (const std::string extra : {"  ulysses_degree: 8\n", "  ulysses_degree: 1\n", "  ulysses_degree: 4\n",
                                  "  ulysses_degree: 1\n  load_balance: true\n",
                                  "  style: AsyncContextParallel\n  ulysses_degree: 2\n  mesh_dim_names: [co, ds]\n"}) {
    const auto d = check(extra);
    EXPECT_FALSE(d.has_errors()) << extra << format_diagnostics(d, "t.yaml");
    EXPECT_EQ(d.items().size(), 0u) << extra << format_diagnostics(d, "t.yaml");
  }
  const Scenario s = load(kHp + "  ulysses_degree: 2\n");
  EXPECT_TRUE(s.hyperparallel_cp());
  EXPECT_EQ(s.hyperparallel.mode(s.cp()), HpMode::Hybrid);
  EXPECT_EQ(load(kHp).hyperparallel.mode(8), HpMode::Ulysses);   // ulysses_degree unset: None
}

TEST(ValidateHyperParallel, UlyssesDegreeMustDivideCp) {
  const auto d = check("  ulysses_degree: 3\n");
  const auto& e = expect_diag(d, Severity::Error, "cp_size (8) must be divisible by ulysses_degree (3).",
                              "hyperparallel.ulysses_degree");
  EXPECT_EQ(e.line, 12);
  EXPECT_EQ(e.column, 3);
  EXPECT_TRUE(any_hint(e, "1, 2, 4, 8")) << e.hints.front();
  expect_diag(check("  ulysses_degree: 16\n"), Severity::Error, "cp_size (8) must be divisible by ulysses_degree (16).",
              "hyperparallel.ulysses_degree");
}

TEST(ValidateHyperParallel, UlyssesDegreeMustBePositive) {
  const auto d = load_errors(kHp + "  ulysses_degree: 0\n");
  const Diagnostic* e = find(d, "hyperparallel.ulysses_degree");
  if (e == nullptr) e = d.items().empty() ? nullptr : &d.items().front();
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->path, "hyperparallel.ulysses_degree");
  EXPECT_EQ(e->line, 12);
}

TEST(ValidateHyperParallel, PureUlyssesNeedsHeadsDivisibleByCp) {
  // cp=16 over 2 nodes: 8 KV heads do not split 16 ways.
  const auto d = check("", {"model.context_parallel_size=16", "cluster.nodes=2"});
  const auto& e = expect_diag(d, Severity::Error, "Pure Ulysses requires num_heads % cp_size == 0", "hyperparallel");
  EXPECT_EQ(e.line, 11);
  EXPECT_TRUE(any_hint(e, "the largest ulysses_degree that divides the heads is 8"));
  EXPECT_TRUE(any_hint(e, "ulysses_degree: 8 (all-to-all in groups of 8, then K/V all-gather across 2)"));
}

TEST(ValidateHyperParallel, HybridNeedsHeadsDivisibleByUlyssesDegree) {
  // MQA-like: 2 KV heads; u = 4 divides cp = 8 and the 32 query heads, not the KV heads.
  const auto d = check("  ulysses_degree: 4\n", {"model.num_query_groups=2"});
  const auto& e = expect_diag(d, Severity::Error, "num_heads (2) must be divisible by ulysses_degree (4).",
                              "hyperparallel.ulysses_degree");
  EXPECT_EQ(e.line, 12);
  EXPECT_TRUE(any_hint(e, "the largest ulysses_degree that divides the heads and cp is 2"));
}

TEST(ValidateHyperParallel, LoadBalanceOnlyWithColossal) {
  const auto d = check("  ulysses_degree: 2\n  load_balance: true\n");
  const auto& e = expect_diag(d, Severity::Error, "load_balance=True requires ulysses_degree=1 (Pure Colossal AI mode).",
                              "hyperparallel.load_balance");
  EXPECT_EQ(e.line, 13);
  // Unset ulysses_degree is pure Ulysses: load_balance is refused too.
  expect_diag(check("  load_balance: true\n"), Severity::Error, "requires ulysses_degree=1", "hyperparallel.load_balance");
}

TEST(ValidateHyperParallel, SequenceRules) {
  const auto d = check("  ulysses_degree: 1\n", {"model.seq_length=131076"});
  const auto& e = expect_diag(d, Severity::Error, "seq_len % cp_size == 0 is required", "model.seq_length");
  EXPECT_TRUE(any_hint(e, "131072 or 131080"));
  // Contiguous slices: a multiple of cp but not of 2*cp is fine without load balancing ...
  EXPECT_FALSE(check("  ulysses_degree: 1\n", {"model.seq_length=131080"}).has_errors());
  // ... and refused with it (the local Q is split in halves).
  expect_diag(check("  ulysses_degree: 1\n  load_balance: true\n", {"model.seq_length=131080"}), Severity::Error,
              "load_balance splits each rank's local Q in halves", "model.seq_length");
}

TEST(ValidateHyperParallel, StyleAndLayoutChoices) {
  const auto d = load_errors(kHp + "  style: AsyncContextparallel\n");
  const Diagnostic* e = find(d, "invalid value 'AsyncContextparallel'");
  ASSERT_NE(e, nullptr) << format_diagnostics(d, "t.yaml");
  EXPECT_EQ(e->path, "hyperparallel.style");
  EXPECT_EQ(e->line, 12);
  EXPECT_TRUE(any_hint(*e, "did you mean 'AsyncContextParallel'?"));
  const auto l = load_errors(kHp + "  style: DSA\n  layout: BSHD\n");
  const Diagnostic* le = find(l, "invalid value 'BSHD' (valid values: BSND, TND)");
  ASSERT_NE(le, nullptr) << format_diagnostics(l, "t.yaml");
  EXPECT_EQ(le->line, 13);
  // layout with ContextParallel: accepted, ignored, said so.
  expect_diag(check("  layout: TND\n"), Severity::Warning, "layout applies to the DSA styles only", "hyperparallel.layout");
  const auto u = load_errors(kHp + "  ulysess_degree: 2\n");
  const Diagnostic* ue = find(u, "unknown key 'ulysess_degree'");
  ASSERT_NE(ue, nullptr) << format_diagnostics(u, "t.yaml");
  EXPECT_TRUE(any_hint(*ue, "did you mean 'ulysses_degree'?"));
}

TEST(ValidateHyperParallel, DsaRules) {
  const std::string dsa_model = "  dsa: {index_topk: 2048, index_n_heads: 64, index_head_dim: 128}\n";
  const std::string base = kHp.substr(0, kHp.find("cluster:")) + dsa_model + kHp.substr(kHp.find("cluster:"));
  // DSA is Colossal only.
  const auto u = check("  style: DSA\n  ulysses_degree: 2\n", {}, base);
  const auto& e = expect_diag(u, Severity::Error, "DSA CP only supports mode=\"colossal\"", "hyperparallel.ulysses_degree");
  EXPECT_EQ(e.line, 14);
  expect_diag(check("  style: DSA\n  load_balance: true\n", {}, base), Severity::Error,
              "the DSA styles have no load_balance option", "hyperparallel.load_balance");
  // DSA needs model.dsa.
  expect_diag(check("  style: DSA\n"), Severity::Error, "style DSA needs model.dsa", "hyperparallel.style");
  // model.dsa needs all three fields.
  const auto m = load_errors(kHp.substr(0, kHp.find("cluster:")) + "  dsa: {index_topk: 2048}\n" +
                             kHp.substr(kHp.find("cluster:")) + "  style: DSA\n");
  ASSERT_NE(find(m, "missing required field 'index_n_heads'"), nullptr) << format_diagnostics(m, "t.yaml");
  // top-k beyond the sequence.
  expect_diag(check("  style: DSA\n", {"model.seq_length=1024"}, base), Severity::Error,
              "index_topk (2048) is larger than seq_length (1024)", "model.dsa.index_topk");
  // model.dsa without the DSA style: ignored, said so.
  expect_diag(check("", {}, base), Severity::Warning, "model.dsa is used only with hyperparallel.style: DSA", "model.dsa");
}

// AsyncDSA (HyperParallel's AsyncDSA*ContextParallel) follows the DSA rules.
TEST(ValidateHyperParallel, AsyncDsaRules) {
  const std::string dsa_model = "  dsa: {index_topk: 2048, index_n_heads: 64, index_head_dim: 128}\n";
  const std::string base = kHp.substr(0, kHp.find("cluster:")) + dsa_model + kHp.substr(kHp.find("cluster:"));
  EXPECT_FALSE(check("  style: AsyncDSA\n", {}, base).has_errors());
  expect_diag(check("  style: AsyncDSA\n  ulysses_degree: 4\n", {}, base), Severity::Error,
              "DSA CP only supports mode=\"colossal\"", "hyperparallel.ulysses_degree");
  expect_diag(check("  style: AsyncDSA\n  load_balance: true\n", {}, base), Severity::Error,
              "the DSA styles have no load_balance option", "hyperparallel.load_balance");
  expect_diag(check("  style: AsyncDSA\n"), Severity::Error, "style AsyncDSA needs model.dsa", "hyperparallel.style");
  // An unknown style names the four.
  const auto bad = load_errors(kHp + "  style: AsyncDsa\n");
  ASSERT_FALSE(bad.items().empty());
  EXPECT_NE(format_diagnostics(bad, "t.yaml").find("AsyncDSA"), std::string::npos) << format_diagnostics(bad, "t.yaml");
}

TEST(ValidateHyperParallel, ReplacedMegatronFields) {
  const std::string with_comm = kHp.substr(0, kHp.find("cluster:")) + "  cp_comm_type: a2a\n" +
                                kHp.substr(kHp.find("cluster:"));
  const auto w = check("  ulysses_degree: 1\n", {}, with_comm);
  const auto& e = expect_diag(w, Severity::Warning, "cp_comm_type does not apply with a hyperparallel: section",
                              "model.cp_comm_type");
  EXPECT_EQ(e.line, 9);
  EXPECT_FALSE(w.has_errors()) << format_diagnostics(w, "t.yaml");
  const auto h = check("  ulysses_degree: 2\n", {"model.hierarchical_context_parallel_sizes=[2,4]"});
  const auto& he = expect_diag(h, Severity::Error, "hierarchical_context_parallel_sizes is Megatron-Core's a2a+p2p split",
                               "model.hierarchical_context_parallel_sizes");
  EXPECT_TRUE(any_hint(he, "hyperparallel.ulysses_degree: 2"));
  expect_diag(check("", {"dist.order=tp-cp-ep-pp-dp"}), Severity::Error, "HyperParallel's device mesh is (dp_shard, cp, tp)",
              "dist.order");
}

TEST(ValidateHyperParallel, MeshDimNames) {
  expect_diag(check("  ulysses_degree: 2\n  mesh_dim_names: [co, co]\n"), Severity::Error,
              "the two mesh dimension names are the same", "hyperparallel.mesh_dim_names");
  const auto n = load_errors(kHp + "  ulysses_degree: 2\n  mesh_dim_names: [a, b, c]\n");
  ASSERT_FALSE(n.items().empty());
  EXPECT_EQ(n.items().front().path, "hyperparallel.mesh_dim_names");
  const auto swapped = check("  ulysses_degree: 2\n  mesh_dim_names: [ds, co]\n");
  const auto& s = expect_diag(swapped, Severity::Warning, "looks swapped", "hyperparallel.mesh_dim_names");
  EXPECT_TRUE(any_hint(s, "mesh_dim_names: [co, ds]"));
  expect_diag(check("  ulysses_degree: 1\n  mesh_dim_names: [co, ds]\n"), Severity::Warning,
              "the colossal mode flattens the CP mesh", "hyperparallel.mesh_dim_names");
}

TEST(ValidateHyperParallel, LargestUlyssesDegree) {
  EXPECT_EQ(largest_ulysses_degree(16, 32, 8), 8);
  EXPECT_EQ(largest_ulysses_degree(8, 32, 8), 8);
  EXPECT_EQ(largest_ulysses_degree(12, 12, 4), 4);
  EXPECT_EQ(largest_ulysses_degree(8, 7, 7), 1);
}

}  // namespace
}  // namespace hcpsim
