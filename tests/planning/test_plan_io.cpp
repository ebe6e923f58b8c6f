// The ways in and out of a plan: `hcpsim import megatron`, the
// emitted layouts (overrides, Megatron-LM arguments, Bridge overrides, scenario file) and the
// changes that make a job fit in memory.
#include <algorithm>
#include <optional>

#include <gtest/gtest.h>

#include "engine/memory/memory_model.h"
#include "engine/planning/megatron_import.h"
#include "engine/planning/memory_fit.h"
#include "engine/planning/plan_emit.h"
#include "engine/planning/planner.h"
#include "engine/scenario/loader.h"
#include "engine/validate/validate.h"

namespace hcpsim::planning {
namespace {

const std::string kExample = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml";

TEST(PlanIo, ImportedMegatronArgumentsReimportToTheSameScenario) {
  const std::vector<std::string> args = {
      "--num-layers", "32", "--hidden-size", "4096", "--ffn-hidden-size", "14336", "--num-attention-heads", "32",
      "--group-query-attention", "--num-query-groups", "8", "--seq-length", "65536", "--tensor-model-parallel-size", "2",
      "--context-parallel-size", "4", "--cp-comm-type", "a2a+p2p", "--hierarchical-context-parallel-sizes", "2", "2",
      "--sequence-parallel", "--micro-batch-size", "1", "--global-batch-size", "16", "--bf16", "--swiglu",
      "--use-distributed-optimizer", "--lr", "3e-4", "--recompute-granularity", "full", "--recompute-method", "uniform",
      "--recompute-num-layers", "1", "--untie-embeddings-and-output-weights", "--no-overlap-p2p-communication"};
  const MegatronImport im = import_megatron(args, {"dgx-h100", 2, 0, "imported"});
  ASSERT_EQ(im.warnings.size(), 1u);
  EXPECT_NE(im.warnings[0].find("--lr"), std::string::npos);
  const Scenario a = load_scenario_string(im.yaml);
  EXPECT_FALSE(validate(a).has_errors());
  EXPECT_EQ(a.tp(), 2);
  EXPECT_EQ(a.cp(), 4);
  EXPECT_EQ(a.model.hierarchical_context_parallel_sizes, (std::vector<int>{2, 2}));
  EXPECT_EQ(a.model.recompute_granularity, RecomputeGranularity::Full);
  EXPECT_FALSE(a.ddp.overlap_grad_reduce);   // Megatron's default when the flag is absent
  EXPECT_EQ(a.model.overlap_p2p_comm, std::optional<bool>(false));   // --no-overlap-p2p-communication
  // Re-import the emitted arguments: the same scenario (configuration and every layout field).
  const std::vector<std::string> emitted = megatron_arguments(a);
  const MegatronImport again = import_megatron(emitted, {"dgx-h100", 2, 0, "imported"});
  EXPECT_TRUE(again.warnings.empty()) << again.warnings.front();
  const Scenario b = load_scenario_string(again.yaml);
  EXPECT_EQ(a.configuration(), b.configuration());
  EXPECT_TRUE(changed_overrides(a, b).empty()) << changed_overrides(a, b).front();
  EXPECT_EQ(megatron_arguments(b), emitted);
  EXPECT_THROW(import_megatron({"--num-layers", "x"}, {"dgx-h100", 1, 0, "i"}), std::invalid_argument);
  EXPECT_THROW(import_megatron({"--hidden-size", "8"}, {"dgx-h100", 1, 0, "i"}), std::invalid_argument);
}

TEST(PlanIo, EmittedLayoutIsAReadyScenario) {
  const Scenario base = load_scenario_file(kExample);
  PlanCandidate c;
  c.tp = 2;
  c.cp = 4;
  c.dp = 2;
  c.pp = 1;
  c.recompute = Recompute::Selective;
  const Scenario s = apply_candidate(base, c, 16);
  const std::vector<std::string> o = changed_overrides(base, s);
  ASSERT_FALSE(o.empty());
  LoadOptions lo;
  lo.overrides = o;
  const Scenario reloaded = load_scenario_file(kExample, lo);   // the overrides give back the layout
  EXPECT_TRUE(changed_overrides(s, reloaded).empty()) << changed_overrides(s, reloaded).front();
  const Scenario file = load_scenario_string(scenario_file_text(kExample, o, "p1", "plan 1"));
  EXPECT_TRUE(changed_overrides(s, file).empty()) << changed_overrides(s, file).front();
  EXPECT_EQ(file.name, "p1");
  for (const std::string& b : bridge_overrides(o)) EXPECT_EQ(b.rfind("cluster.", 0), std::string::npos) << b;
}

// A layout candidate that keeps the base's memory class keeps the base's stated recomputation
// (torchtitan's selective_op, DistFlashAttn's non_attention, full with the block method); a
// searched, different class replaces it.
TEST(PlanIo, CandidateKeepsTheStatedRecomputation) {
  PlanCandidate c;
  c.tp = 2;
  c.cp = 4;
  c.dp = 2;
  c.pp = 1;
  for (const char* g : {"selective_op", "non_attention"}) {
    LoadOptions lo;
    lo.overrides = {std::string("model.recompute_granularity=") + g};
    const Scenario base = load_scenario_file(kExample, lo);
    c.recompute = recompute_of(base);
    const Scenario s = apply_candidate(base, c, 16);
    EXPECT_EQ(s.model.recompute_granularity, base.model.recompute_granularity) << g;
    const std::vector<std::string> o = changed_overrides(base, s);
    EXPECT_TRUE(std::none_of(o.begin(), o.end(), [](const std::string& x) { return x.rfind("model.recompute", 0) == 0; }))
        << g;
  }
  LoadOptions block;
  block.overrides = {"model.recompute_granularity=full", "model.recompute_method=block", "model.recompute_num_layers=2"};
  const Scenario base = load_scenario_file(kExample, block);
  c.recompute = Recompute::Full;
  const Scenario kept = apply_candidate(base, c, 16);
  EXPECT_EQ(kept.model.recompute_method, RecomputeMethod::Block);
  EXPECT_EQ(kept.model.recompute_num_layers, 2);
  // A different class is the search's own choice.
  c.recompute = Recompute::Selective;
  EXPECT_EQ(apply_candidate(base, c, 16).model.recompute_granularity, RecomputeGranularity::Selective);
}

// A stated overlap_p2p_comm: true stays with the interleaved candidates; one without interleaving
// runs without it (Megatron-LM turns it off there), is valid, and its overrides say null.
TEST(PlanIo, CandidateWithoutInterleavingDropsTheStatedP2pOverlap) {
  LoadOptions lo;
  lo.overrides = {"model.pipeline_model_parallel_size=2", "model.virtual_pipeline_model_parallel_size=2",
                  "model.overlap_p2p_comm=true"};
  const Scenario base = load_scenario_file(kExample, lo);
  ASSERT_EQ(base.model.overlap_p2p_comm, std::optional<bool>(true));
  PlanCandidate c;
  c.tp = 2;
  c.cp = 2;
  c.dp = 2;
  c.pp = 2;
  c.vpp = 2;
  c.recompute = recompute_of(base);
  EXPECT_EQ(apply_candidate(base, c, 16).model.overlap_p2p_comm, std::optional<bool>(true));
  c.vpp = 1;
  const Scenario s = apply_candidate(base, c, 16);
  EXPECT_FALSE(s.model.overlap_p2p_comm.has_value());
  const Diagnostics found = validate(s);
  for (const Diagnostic& d : found.items()) EXPECT_NE(d.path, "model.overlap_p2p_comm") << d.message;
  const std::vector<std::string> o = changed_overrides(base, s);
  EXPECT_NE(std::find(o.begin(), o.end(), "model.overlap_p2p_comm=null"), o.end());
  LoadOptions again = lo;
  again.overrides.insert(again.overrides.end(), o.begin(), o.end());
  EXPECT_TRUE(changed_overrides(s, load_scenario_file(kExample, again)).empty());
}

TEST(PlanIo, MemoryFixesNameTheSmallestChangeThatFits) {
  LoadOptions none;
  none.overrides = {"model.recompute_granularity=null"};
  const Scenario s = load_scenario_file(kExample, none);
  ASSERT_FALSE(estimate_memory(s).fits);
  const auto fixes = memory_fixes(s, {});
  ASSERT_FALSE(fixes.empty());
  for (const MemoryFix& f : fixes) {
    LoadOptions lo;
    lo.overrides = f.overrides;
    lo.overrides.insert(lo.overrides.begin(), "model.recompute_granularity=null");
    const Scenario fixed = load_scenario_file(kExample, lo);
    EXPECT_TRUE(estimate_memory(fixed).fits);
    EXPECT_FALSE(validate(fixed).has_errors());
  }
  EXPECT_LE(fixes.front().overrides.size(), fixes.back().overrides.size());
  const auto lines = memory_warning(s, estimate_memory(s), fixes);
  EXPECT_NE(lines.front().find("GiB over"), std::string::npos) << lines.front();
}

}  // namespace
}  // namespace hcpsim::planning
