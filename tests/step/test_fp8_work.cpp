// FP8's own work in the step (term `fp8_work`, docs/metrics.md section 9.12) and the gradient
// norm (term `grad_norm`): the cast kernels' bytes against their closed forms, where they run, the
// FP8 weight copies in memory, and both terms switched off.
#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "engine/memory/memory_model.h"
#include "engine/step/fp8_work.h"
#include "engine/step/step_model.h"
#include "engine/step/step_work.h"
#include "tests/support/llama3_models.h"

namespace hcpsim::step {
namespace {

// Llama-3-8B, 8K tokens, tp 2 on one H100 node (dp 4), BF16 activations.
Scenario llama8b(const std::string& fp8) {
  Scenario s = test::scenario_of_shape(test::kLlama3_8B);
  s.name = "fp8-work-test";
  s.model.seq_length = 8192;
  s.model.tensor_model_parallel_size = 2;
  s.model.sequence_parallel = true;
  s.model.fp8 = fp8;
  s.cluster.nodes = 1;
  s.cluster.gpus_per_node = 8;
  s.train.micro_batch_size = 1;
  s.simulation.backend = "analytic";
  return s;
}

double bytes_of(const std::vector<Kernel>& ks, const std::string& prefix) {
  double b = 0;
  for (const Kernel& k : ks)
    if (std::string(k.label).rfind(prefix, 0) == 0) b += k.bytes;
  return b;
}

TEST(Fp8Work, NoFp8NoCasts) {
  const StepWork w = step_work(llama8b(""));
  EXPECT_EQ(bytes_of(w.layer_elementwise_forward, "fp8_"), 0.0);
  EXPECT_EQ(bytes_of(w.layer_elementwise_backward, "fp8_"), 0.0);
  EXPECT_EQ(w.fp8_weight_bytes, 0.0);
}

TEST(Fp8Work, CastBytesFollowTheProjectionsShapes) {
  const Scenario s = llama8b("hybrid");
  const StepWork w = step_work(s);
  const double m = 8192, h = 4096, qkv = (4096 + 2 * 1024) / 2.0, f = 14336 / 2.0, q = 4096 / 2.0;
  // Forward: transposes of the norm-written FP8 inputs of QKV and FC1 (1 + 1 bytes), casts with
  // transpose of the attention output and the SwiGLU output (2 + 1 + 1 bytes).
  EXPECT_DOUBLE_EQ(bytes_of(w.layer_elementwise_forward, "fp8_"), 2 * m * h + 4 * m * q + 2 * m * h + 4 * m * f);
  // Backward: each projection's output gradient cast with its transpose (2 + 1 + 1 bytes).
  EXPECT_DOUBLE_EQ(bytes_of(w.layer_elementwise_backward, "fp8_"), 4 * m * (qkv + h + 2 * f + h));
  // Per step: every layer weight of the rank read once and written in FP8 twice.
  const double weights = h * qkv + q * h + h * 2 * f + f * h;
  EXPECT_DOUBLE_EQ(w.fp8_weight_bytes, 32 * 4 * weights);
  ASSERT_FALSE(w.step_end.empty());
  EXPECT_EQ(std::string(w.step_end.back().label), "fp8_weight_cast");
}

// The recipe sets the bytes of each quantization (table in engine/step/fp8_work.cpp): current
// scaling reads each tensor once more for its amax and cannot fuse the cast into the norm; MXFP8
// writes row- and column-wise copies with one E8M0 scale per 32 elements; Blackwell reads no
// transposed copies for per-tensor recipes.
TEST(Fp8Work, RecipeAndGpuSetTheQuantizationBytes) {
  const double m = 8192, h = 4096, qkv = (4096 + 2 * 1024) / 2.0, f = 14336 / 2.0, q = 4096 / 2.0, e = 2;
  const double norm_inputs = 2 * m * h, other_inputs = m * q + m * f, grads = m * (qkv + h + 2 * f + h);
  auto with = [](const std::string& recipe, const std::string& gpu) {
    Scenario s = llama8b("hybrid");
    s.model.fp8_recipe = recipe;
    s.cluster.gpu.name = gpu;
    return step_work(s);
  };
  const StepWork cs = with("tensorwise", "h100-sxm");
  EXPECT_DOUBLE_EQ(bytes_of(cs.layer_elementwise_forward, "fp8_"), (e + 2) * norm_inputs + (2 * e + 2) * other_inputs);
  EXPECT_DOUBLE_EQ(bytes_of(cs.layer_elementwise_backward, "fp8_"), (2 * e + 2) * grads);
  const StepWork delayed_b200 = with("delayed", "b200");
  EXPECT_DOUBLE_EQ(bytes_of(delayed_b200.layer_elementwise_forward, "fp8_"), (e + 1) * other_inputs);
  EXPECT_DOUBLE_EQ(bytes_of(delayed_b200.layer_elementwise_backward, "fp8_"), (e + 1) * grads);
  const StepWork mx = with("mxfp8", "b200");
  EXPECT_DOUBLE_EQ(bytes_of(mx.layer_elementwise_forward, "fp8_"), (e + 2 + 1.0 / 16) * (norm_inputs + other_inputs));
  EXPECT_DOUBLE_EQ(bytes_of(mx.layer_elementwise_backward, "fp8_"), (e + 2 + 1.0 / 16) * grads);
  EXPECT_GT(cs.fp8_weight_bytes, with("delayed", "h100-sxm").fp8_weight_bytes);
  LayerTimes lt;
  lt.whole_layer = true;
  lt.layer_forward_s = 10e-3;
  lt.layer_backward_s = 20e-3;
  Scenario delayed = llama8b("hybrid"), current = llama8b("hybrid");
  current.model.fp8_recipe = "tensorwise";
  EXPECT_GT(compose_step(current, lt).elementwise_s, compose_step(delayed, lt).elementwise_s);
}

TEST(Fp8Work, TermOffAddsNothingAndTheStepIsFaster) {
  Scenario s = llama8b("hybrid");
  const StepWork on = step_work(s);
  s.cluster.efficiency.terms.fp8_work = false;
  const StepWork off = step_work(s);
  EXPECT_EQ(bytes_of(off.layer_elementwise_forward, "fp8_"), 0.0);
  EXPECT_EQ(off.fp8_weight_bytes, 0.0);
  EXPECT_GT(on.layer_elementwise_forward.size(), off.layer_elementwise_forward.size());
  LayerTimes lt;
  lt.whole_layer = true;
  lt.layer_forward_s = 10e-3;
  lt.layer_backward_s = 20e-3;
  Scenario with = llama8b("hybrid");
  EXPECT_GT(compose_step(with, lt).elementwise_s, compose_step(s, lt).elementwise_s);
}

TEST(Fp8Work, Fp8WeightCopiesInMemory) {
  Scenario s = llama8b("hybrid");
  const double with = estimate_memory(s).weights_bytes;
  s.model.fp8.clear();
  const double without = estimate_memory(s).weights_bytes;
  const double h = 4096, qkv = (4096 + 2 * 1024) / 2.0, f = 14336 / 2.0, q = 4096 / 2.0;
  const double layer_params = h * qkv + q * h + 3 * h * f;   // the norms stay BF16
  EXPECT_NEAR(with - without, 2.0 * 32 * layer_params, 1.0);
}

TEST(GradNorm, ReadsTheGradientShardOnceBeforeTheOptimizer) {
  Scenario s = llama8b("");
  const StepWork w = step_work(s);
  ASSERT_GE(w.step_end.size(), 2u);
  EXPECT_EQ(std::string(w.step_end[0].label), "grad_norm");
  EXPECT_DOUBLE_EQ(w.grad_norm_bytes, 4.0 * w.params / w.dp_group_size);   // distributed optimizer
  s.cluster.efficiency.terms.grad_norm = false;
  const StepWork off = step_work(s);
  EXPECT_EQ(off.grad_norm_bytes, 0.0);
  EXPECT_EQ(std::string(off.step_end.front().label), "optimizer");
  LayerTimes lt;
  lt.whole_layer = true;
  lt.layer_forward_s = 10e-3;
  lt.layer_backward_s = 20e-3;
  EXPECT_GT(compose_step(llama8b(""), lt).optimizer_s, compose_step(s, lt).optimizer_s);
}

}  // namespace
}  // namespace hcpsim::step
