// model.elementwise_ops: the layers' memory-bound kernels (norms, RoPE, SwiGLU, residual adds) in
// the composed step, on and off, their bytes against the closed forms of docs/metrics.md section 11,
// and where they run (forward, backward, recomputed forward).
#include <gtest/gtest.h>

#include <numeric>

#include "engine/cost/cost_model.h"
#include "engine/graph/task_graph.h"
#include "engine/step/layer_elementwise.h"
#include "engine/step/step_model.h"
#include "engine/step/step_work.h"
#include "tests/support/llama3_models.h"

namespace hcpsim::step {
namespace {

// LLaMA-7B, 4K tokens per GPU on 8 A100-like GPUs (HBM 2.039 TB/s), cp 8, no TP.
Scenario llama7b(ElementwiseOps ops) {
  Scenario s = test::llama7b_cp8_one_node("elementwise-test");
  s.model.elementwise_ops = ops;
  s.cluster.gpu.hbm_Bps = 2.039e12;
  return s;
}

LayerTimes fixed_layer() {
  LayerTimes lt;
  lt.layer_forward_s = 10e-3;
  lt.layer_backward_s = 25e-3;
  lt.attention_forward_s = 4e-3;
  return lt;
}

double bytes_of(const std::vector<Kernel>& ks) {
  return std::accumulate(ks.begin(), ks.end(), 0.0, [](double a, const Kernel& k) { return a + k.bytes; });
}

// Seconds of the kernels on the scenario's cost model, one after the other.
double seconds_of(const Scenario& s, const std::vector<Kernel>& ks) {
  const CostModel cost(s);
  TaskGraph g;
  double t = 0;
  for (const Kernel& k : ks) {
    Task task;
    task.kind = k.kind;
    task.bytes = k.bytes;
    t += cost.compute_seconds(g, task);
  }
  return t;
}

TEST(LayerElementwise, NoneAddsNoKernelAndLeavesTheStepUnchanged) {
  const Scenario s = llama7b(ElementwiseOps::None);
  const StepWork w = step_work(s);
  EXPECT_TRUE(w.layer_elementwise_forward.empty());
  EXPECT_TRUE(w.layer_elementwise_backward.empty());
  const StepReport r = compose_step(s, fixed_layer());
  EXPECT_EQ(r.elementwise_s, 0.0);
  // The stage is its layers plus the embedding and the output layer, as before the term existed.
  EXPECT_GT(r.stage_forward_s, 32 * 10e-3);
  EXPECT_LT(r.stage_forward_s, 32 * 10e-3 + r.embedding_s + r.output_layer_s + 1e-12);
}

TEST(LayerElementwise, FusedBytesAreOneReadAndWritePerOp) {
  const Scenario s = llama7b(ElementwiseOps::Fused);
  const StepWork w = step_work(s);
  const double m = 4096, h = 4096, q = 4096, k = 4096, f = 11008, e = 2;
  // Two norms (read x, write y), RoPE of Q and K, two residual adds (read two, write one), SwiGLU.
  EXPECT_DOUBLE_EQ(bytes_of(w.layer_elementwise_forward), m * (2 * 2 * e * h + 2 * e * (q + k) + 2 * 3 * e * h + 3 * e * f));
  EXPECT_EQ(w.layer_elementwise_forward.size(), 6u);
  // Backward: norms read x and dy, write dx; two residual gradient sums; RoPE; SwiGLU's two gradients.
  EXPECT_DOUBLE_EQ(bytes_of(w.layer_elementwise_backward), m * (2 * 3 * e * h + 2 * 3 * e * h + 2 * e * (q + k) + 5 * e * f));
  for (const Kernel& kn : w.layer_elementwise_forward) EXPECT_EQ(kn.kind, TaskKind::Copy) << kn.label;
}

TEST(LayerElementwise, SequenceParallelShrinksNormsAndResidualsNotTheRest) {
  Scenario a = llama7b(ElementwiseOps::Fused);
  a.model.tensor_model_parallel_size = 2;
  a.model.context_parallel_size = 4;   // same tokens per GPU (8192 / tp columns)
  a.model.sequence_parallel = false;
  Scenario b = a;
  b.model.sequence_parallel = true;
  const double e = 2, m = 8192, h = 4096;
  // Without SP every TP rank runs the norms and residual adds on all its tokens; with SP on 1/tp.
  EXPECT_NEAR(bytes_of(step_work(a).layer_elementwise_forward) - bytes_of(step_work(b).layer_elementwise_forward),
              (m - m / 2) * (2 * 2 * e * h + 2 * 3 * e * h), 1e-3);
}

TEST(LayerElementwise, UnfusedMovesSeveralTimesTheFusedBytes) {
  const StepWork fused = step_work(llama7b(ElementwiseOps::Fused));
  const StepWork unfused = step_work(llama7b(ElementwiseOps::Unfused));
  const double m = 4096, h = 4096, q = 4096, k = 4096, f = 11008, e = 2, fp32 = 4;
  // Forward: two fp32 RMSNorms (cast, square, mean, scale, cast back, weight: 28 + 4e bytes per
  // element), RoPE of Q and K (neg, cat, two products, sum: 10e), the Q/K/V head-major copies and the
  // attention output's copy back (2e each), two residual adds (3e), SiLU and the product (5e).
  const double fwd = m * (2 * (7 * fp32 + 4 * e) * h + 10 * e * (q + k) + 2 * e * (q + 2 * k) + 2 * e * q +
                          2 * 3 * e * h + 5 * e * f);
  EXPECT_DOUBLE_EQ(bytes_of(unfused.layer_elementwise_forward), fwd);
  EXPECT_GT(bytes_of(unfused.layer_elementwise_forward), 3 * bytes_of(fused.layer_elementwise_forward));
  EXPECT_GT(bytes_of(unfused.layer_elementwise_backward), bytes_of(unfused.layer_elementwise_forward));
  EXPECT_GT(unfused.layer_elementwise_forward.size(), 20u);   // one launch per tensor operation
}

TEST(LayerElementwise, RunInEveryForwardBackwardAndRecomputedForward) {
  for (const ElementwiseOps ops : {ElementwiseOps::Fused, ElementwiseOps::Unfused}) {
    Scenario s = llama7b(ops);
    const StepWork w = step_work(s);
    const double f = seconds_of(s, w.layer_elementwise_forward), b = seconds_of(s, w.layer_elementwise_backward);
    ASSERT_GT(f, 0.0);
    ASSERT_GT(b, 0.0);
    Scenario off = s;
    off.model.elementwise_ops = ElementwiseOps::None;
    const StepReport r0 = compose_step(off, fixed_layer());
    const StepReport r = compose_step(s, fixed_layer());
    EXPECT_NEAR(r.stage_forward_s - r0.stage_forward_s, 32 * f, 1e-12);
    EXPECT_NEAR(r.stage_backward_s - r0.stage_backward_s, 32 * b, 1e-12);
    EXPECT_NEAR(r.elementwise_s, 32 * (f + b), 1e-12);
    // Recomputation that reruns the layer outside the attention reruns these kernels too.
    for (const RecomputeGranularity g : {RecomputeGranularity::Full, RecomputeGranularity::NonAttention}) {
      s.model.recompute_granularity = off.model.recompute_granularity = g;
      const StepReport rr0 = compose_step(off, fixed_layer());
      const StepReport rr = compose_step(s, fixed_layer());
      EXPECT_NEAR(rr.recompute_s - rr0.recompute_s, 32 * f, 1e-12) << to_string(g);
      EXPECT_NEAR(rr.elementwise_s, 32 * (2 * f + b), 1e-12) << to_string(g);
      EXPECT_GT(rr.time_s, rr0.time_s);
    }
    // Selective recomputation reruns the core attention only.
    s.model.recompute_granularity = off.model.recompute_granularity = RecomputeGranularity::Selective;
    EXPECT_NEAR(compose_step(s, fixed_layer()).recompute_s, compose_step(off, fixed_layer()).recompute_s, 1e-15);
  }
}

TEST(LayerElementwise, AttentionOnlyLayersHaveNoElementwiseKernels) {
  Scenario s = llama7b(ElementwiseOps::Unfused);
  LayerTimes lt = fixed_layer();
  lt.whole_layer = false;
  EXPECT_EQ(compose_step(s, lt).elementwise_s, 0.0);
  s.model.ffn_hidden_size = 0;
  EXPECT_TRUE(step_work(s).layer_elementwise_forward.empty());
}

}  // namespace
}  // namespace hcpsim::step
