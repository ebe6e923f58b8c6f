// What the emitted Megatron-LM arguments and Bridge overrides cannot express is named, never dropped
// in silence: op-level and non-attention recomputation, HyperParallel CP modes, parameter sharding,
// gradients reduced in the parameters' dtype; the rank order tp-cp-ep-pp-dp and TP communication
// overlap are written as Megatron-LM arguments and read back by the import.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/planning/megatron_import.h"
#include "engine/planning/plan_emit.h"
#include "engine/planning/planner.h"
#include "engine/scenario/loader.h"
#include "engine/validate/validate.h"

namespace hcpsim::planning {
namespace {

const std::string kExample = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml";

Scenario example(std::vector<std::string> overrides) {
  LoadOptions o;
  o.overrides = std::move(overrides);
  return load_scenario_file(kExample, o);
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

bool any_names(const std::vector<std::string>& v, const std::string& a, const std::string& b) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& w) {
    return w.find(a) != std::string::npos && w.find(b) != std::string::npos;
  });
}

TEST(PlanEmitWarnings, ThePlainExampleSaysEverything) {
  const Scenario s = example({});
  EXPECT_TRUE(emit_warnings(s).empty()) << emit_warnings(s).front();
}

TEST(PlanEmitWarnings, RecomputationWithoutAMegatronArgumentIsNamed) {
  for (const char* g : {"selective_op", "non_attention"}) {
    const Scenario s = example({std::string("model.recompute_granularity=") + g});
    ASSERT_FALSE(validate(s).has_errors()) << g;
    const std::vector<std::string> args = megatron_arguments(s);
    EXPECT_FALSE(has(args, "--recompute-granularity")) << g;   // Megatron-LM has no such value
    const std::vector<std::string> w = emit_warnings(s);
    EXPECT_TRUE(any_names(w, "model.recompute_granularity", g)) << g;
    const std::vector<std::string> bridge = bridge_overrides({std::string("model.recompute_granularity=") + g, "train.micro_batch_size=2"});
    EXPECT_EQ(bridge, (std::vector<std::string>{"train.micro_batch_size=2"})) << g;
  }
  // Megatron's own values are written and need no warning.
  const Scenario sel = example({"model.recompute_granularity=selective"});
  EXPECT_TRUE(has(megatron_arguments(sel), "--recompute-granularity"));
  EXPECT_TRUE(emit_warnings(sel).empty());
}

TEST(PlanEmitWarnings, ShardingAndReduceDtypeAreNamed) {
  const Scenario s = example({"ddp.shard_parameters=true"});
  EXPECT_TRUE(any_names(emit_warnings(s), "ddp.shard_parameters", "not written"));
  EXPECT_TRUE(bridge_overrides({"ddp.shard_parameters=true"}).empty());
  const Scenario r = example({"ddp.grad_reduce_in_fp32=false"});
  EXPECT_TRUE(any_names(emit_warnings(r), "ddp.grad_reduce_in_fp32", "false"));
}

TEST(PlanEmitWarnings, HyperParallelModeIsNamed) {
  const Scenario s = load_scenario_file(std::string(HCPSIM_SOURCE_DIR) + "/scenarios/hp-llama3-8b-128k-dgx-h100-hybrid.yaml");
  ASSERT_TRUE(s.hyperparallel_cp());
  EXPECT_FALSE(has(megatron_arguments(s), "--cp-comm-type"));
  EXPECT_TRUE(any_names(emit_warnings(s), "hyperparallel", "hybrid"));
}

TEST(PlanEmitWarnings, RankOrderAndTpOverlapRoundTripThroughTheImport) {
  const Scenario s = example({"model.pipeline_model_parallel_size=2", "model.virtual_pipeline_model_parallel_size=1",
                              "cluster.nodes=8", "dist.order=tp-cp-ep-pp-dp", "model.tensor_model_parallel_size=2",
                              "model.sequence_parallel=true", "model.tp_comm_overlap=true"});
  ASSERT_FALSE(validate(s).has_errors());
  const std::vector<std::string> args = megatron_arguments(s);
  EXPECT_TRUE(has(args, "--use-tp-pp-dp-mapping"));
  EXPECT_TRUE(has(args, "--tp-comm-overlap"));
  const MegatronImport im = import_megatron(args, {"dgx-h100", 8, 0, "imported"});
  EXPECT_TRUE(im.warnings.empty()) << im.warnings.front();
  const Scenario b = load_scenario_string(im.yaml);
  EXPECT_EQ(b.dist.order, "tp-cp-ep-pp-dp");
  EXPECT_TRUE(b.model.tp_comm_overlap);
  EXPECT_EQ(megatron_arguments(b), args);
  // Bridge has no dist.order key: said, not silently lost.
  EXPECT_TRUE(any_names(emit_warnings(s), "dist.order", "Bridge"));
}

}  // namespace
}  // namespace hcpsim::planning
