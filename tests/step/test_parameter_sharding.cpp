// ddp.shard_parameters (ZeRO-3 / FSDP): per-layer parameter all-gathers and gradient
// reduce-scatters in the composed step, against the closed forms of parameter_sharding.cpp, on and
// off; the sizes, the memory it saves, and the whole-step graph's refusal.
#include <gtest/gtest.h>

#include <stdexcept>

#include "engine/cost/cost_model.h"
#include "engine/cost/route.h"
#include "engine/layout/rank_layout.h"
#include "engine/memory/memory_model.h"
#include "engine/step/parameter_sharding.h"
#include "engine/step/step_collectives.h"
#include "engine/step/step_graph.h"
#include "engine/step/step_model.h"
#include "engine/step/step_work.h"
#include "tests/support/llama3_models.h"

namespace hcpsim::step {
namespace {

// LLaMA-7B on one 8-GPU node, cp 8: the DP x CP group is the 8 GPUs.
Scenario llama7b(bool shard) {
  Scenario s = test::llama7b_cp8_one_node("sharding-test");
  s.ddp.shard_parameters = shard;
  return s;
}

LayerTimes fixed_layer(double f_s = 10e-3, double b_s = 25e-3) {
  LayerTimes lt;
  lt.layer_forward_s = f_s;
  lt.layer_backward_s = b_s;
  lt.attention_forward_s = 0.4 * f_s;
  return lt;
}

struct Calls {
  double gather_s = 0, reduce_s = 0;
};

// One layer's all-gather and reduce-scatter alone, computed here from the step's collectives.
Calls calls_of(const Scenario& s) {
  const CostModel cost(s);
  const RouteModel routes(s, cost);
  const RankLayout layout = RankLayout::from_scenario(s);
  const StepWork w = step_work(s);
  const auto& group = layout.group_of(GroupKind::DP_CP, 0);
  return {ring_s(routes, TaskKind::AllGather, group, w.layer_param_gather_bytes) + launch_s(cost, TaskKind::AllGather),
          ring_s(routes, TaskKind::ReduceScatter, group, w.layer_grad_reduce_bytes) +
              launch_s(cost, TaskKind::ReduceScatter)};
}

ShardingCost sharding_of(const Scenario& s, double f, double b, int k, int layers) {
  const CostModel cost(s);
  const RouteModel routes(s, cost);
  const RankLayout layout = RankLayout::from_scenario(s);
  return parameter_sharding_s(s, cost, routes, layout, step_work(s), f, b, k, layers);
}

TEST(ParameterSharding, OffAddsNothing) {
  const Scenario s = llama7b(false);
  const StepWork w = step_work(s);
  EXPECT_EQ(w.layer_param_gather_bytes, 0.0);
  EXPECT_EQ(w.layer_grad_reduce_bytes, 0.0);
  const StepReport r = compose_step(s, fixed_layer());
  EXPECT_EQ(r.fsdp_exposed_s, 0.0);
  EXPECT_EQ(r.fsdp_param_gather_s, 0.0);
  EXPECT_GT(r.dp_grad_reduce_s, 0.0);   // the distributed optimizer's step-end reduction instead
}

TEST(ParameterSharding, LayerShardsAreOneLayersParametersOverTheGroup) {
  const Scenario s = llama7b(true);
  const StepWork w = step_work(s);
  const double h = 4096, f = 11008, e = 2, n = 8;
  const double layer_params = 4 * h * h + 3 * h * f + 2 * h;   // QKV + out-proj (MHA), gated MLP, two norms
  EXPECT_DOUBLE_EQ(w.layer_param_gather_bytes, e * layer_params / n);
  EXPECT_DOUBLE_EQ(w.layer_grad_reduce_bytes, e * layer_params / n);
  // Only the embedding and the output layer (and the final norm) are left to the step-end calls.
  EXPECT_NEAR(w.grad_reduce_bytes * n / e, w.params - 32 * layer_params, 1.0);
  const StepWork off = step_work(llama7b(false));
  EXPECT_LT(w.grad_reduce_bytes, off.grad_reduce_bytes / 10);
}

TEST(ParameterSharding, ClosedFormsWhenComputeHidesOrCannotHideTheCalls) {
  Scenario s = llama7b(true);
  s.cluster.efficiency.terms.comm_compute_interference = false;   // no share of the GPU: pure exposure
  const Calls c = calls_of(s);
  ASSERT_GT(c.gather_s, 0.0);
  ASSERT_GT(c.reduce_s, 0.0);
  // Compute far longer than the calls: only the first layer's gathers and the last reduction show.
  const ShardingCost hidden = sharding_of(s, 1.0, 1.0, 1, 32);
  EXPECT_NEAR(hidden.forward_s, c.gather_s, 1e-12);
  EXPECT_NEAR(hidden.backward_s, c.gather_s + c.reduce_s, 1e-12);
  // A recomputed forward gathers again in the backward.
  EXPECT_NEAR(sharding_of(s, 1.0, 1.0, 2, 32).backward_s, 2 * c.gather_s + c.reduce_s, 1e-12);
  // No compute at all: every call is exposed, one after the other.
  const ShardingCost bare = sharding_of(s, 0.0, 0.0, 2, 32);
  EXPECT_NEAR(bare.forward_s, 32 * c.gather_s, 1e-12);
  EXPECT_NEAR(bare.backward_s, 32 * (2 * c.gather_s + c.reduce_s), 1e-12);
}

TEST(ParameterSharding, HiddenCallsSlowTheComputeTheyOverlap) {
  const Scenario s = llama7b(true);   // comm_compute_interference on (the default)
  const Calls c = calls_of(s);
  const ShardingCost with = sharding_of(s, 1.0, 1.0, 1, 32);
  EXPECT_GT(with.forward_s, c.gather_s);   // 31 hidden gathers each take a share of the GPU
  EXPECT_LT(with.forward_s, 32 * c.gather_s);
}

TEST(ParameterSharding, ComposedStepAddsTheCallsToEachStage) {
  Scenario s = llama7b(true);
  s.cluster.efficiency.terms.comm_compute_interference = false;
  const Calls c = calls_of(s);
  const StepReport on = compose_step(s, fixed_layer());
  const StepReport off = compose_step(llama7b(false), fixed_layer());
  EXPECT_NEAR(on.fsdp_param_gather_s, c.gather_s, 1e-12);
  EXPECT_NEAR(on.fsdp_grad_reduce_s, c.reduce_s, 1e-12);
  // 10 ms / 25 ms layers hide every call but the first gathers and the last reduction.
  EXPECT_NEAR(on.stage_forward_s - off.stage_forward_s, c.gather_s, 1e-12);
  EXPECT_NEAR(on.stage_backward_s - off.stage_backward_s, c.gather_s + c.reduce_s, 1e-12);
  EXPECT_NEAR(on.fsdp_exposed_s, 2 * c.gather_s + c.reduce_s, 1e-12);
  // non_attention recomputation reruns the layer forward, which gathers the parameters again.
  s.model.recompute_granularity = RecomputeGranularity::NonAttention;
  EXPECT_NEAR(compose_step(s, fixed_layer()).fsdp_exposed_s, 3 * c.gather_s + c.reduce_s, 1e-12);
}

TEST(ParameterSharding, WeightsAndGradientsShrinkToTheShardPlusTwoLayers) {
  const MemoryEstimate on = estimate_memory(llama7b(true));
  const MemoryEstimate off = estimate_memory(llama7b(false));
  const double layer_params = 4.0 * 4096 * 4096 + 3.0 * 4096 * 11008 + 2 * 4096;
  EXPECT_NEAR(on.weights_bytes, 2 * (off.parameters / 8 + 2 * layer_params), 1.0);
  EXPECT_NEAR(on.gradients_bytes, 4 * (off.parameters / 8 + 2 * layer_params), 1.0);
  EXPECT_DOUBLE_EQ(on.optimizer_bytes, off.optimizer_bytes);   // sharded either way (distributed optimizer)
}

TEST(ParameterSharding, WholeStepGraphRefusesItByName) {
  const Scenario s = llama7b(true);
  const RankLayout layout = RankLayout::from_scenario(s);
  try {
    build_step_graph(s, layout);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("ddp.shard_parameters"), std::string::npos) << e.what();
  }
}

// ddp.grad_reduce_in_fp32: stated, it sets the bytes of every gradient reduction; unset, FSDP reduces
// in params_dtype and the distributed optimizer's buckets in fp32.
TEST(ParameterSharding, GradReduceDtypeFollowsTheStatedSetting) {
  Scenario s = llama7b(true);
  const double bf16 = step_work(s).layer_grad_reduce_bytes;
  s.ddp.grad_reduce_in_fp32 = true;
  EXPECT_DOUBLE_EQ(step_work(s).layer_grad_reduce_bytes, 2 * bf16);
  EXPECT_DOUBLE_EQ(step_work(s).layer_param_gather_bytes, bf16);   // parameters still gathered in bf16
  EXPECT_GT(sharding_of(s, 10e-3, 25e-3, 1, 32).backward_s, sharding_of(llama7b(true), 10e-3, 25e-3, 1, 32).backward_s);
  Scenario d = llama7b(false);
  const double fp32 = step_work(d).grad_reduce_bytes;
  d.ddp.grad_reduce_in_fp32 = false;
  EXPECT_DOUBLE_EQ(step_work(d).grad_reduce_bytes, fp32 / 2);
}

}  // namespace
}  // namespace hcpsim::step
