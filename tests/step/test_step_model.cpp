// compose_step: tokens/s, DP collectives against their alpha-beta closed form, doubling dp at a
// fixed global batch, recomputation, prefill, model FLOPs, and the per-layer composition against a
// multi-layer task graph on the analytic backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/analytic/analytic_backend.h"
#include "engine/app/simulate.h"
#include "engine/cost/cost_model.h"
#include "engine/memory/memory_model.h"
#include "engine/step/model_flops.h"
#include "engine/step/step_model.h"
#include "engine/step/step_work.h"
#include "tests/support/llama3_models.h"

namespace hcpsim::step {
namespace {

// Llama-3-8B-like dense model on DGX-H100-like nodes (no YAML, no presets).
Scenario llama8b(int nodes, int tp, int cp, int pp) {
  Scenario s = test::scenario_of_shape(test::kLlama3_8B);
  s.name = "step-test";
  s.model.seq_length = 16384;
  s.model.tensor_model_parallel_size = tp;
  s.model.context_parallel_size = cp;
  s.model.pipeline_model_parallel_size = pp;
  s.model.sequence_parallel = tp > 1;
  s.cluster.nodes = nodes;
  s.cluster.gpus_per_node = 8;
  s.cluster.nics_per_node = 8;
  s.simulation.backend = "analytic";
  // The closed forms below are over the given layer times alone (elementwise kernels: their own test).
  s.model.elementwise_ops = ElementwiseOps::None;
  return s;
}

LayerTimes fixed_layer() {
  LayerTimes lt;
  lt.layer_forward_s = 1e-3;
  lt.layer_backward_s = 2e-3;
  lt.attention_forward_s = 0.4e-3;
  return lt;
}

TEST(StepModel, TokensPerSecondIsGlobalBatchTokensOverStepTime) {
  Scenario s = llama8b(2, 2, 2, 2);   // 16 GPUs: dp = 2
  s.train.global_batch_size = 8;
  const StepReport r = compose_step(s, fixed_layer());
  EXPECT_EQ(r.micro_batches, 8 / (1 * 2));
  ASSERT_GT(r.time_s, 0);
  EXPECT_DOUBLE_EQ(r.tokens_per_s, 8.0 * 16384 / r.time_s);
  EXPECT_DOUBLE_EQ(r.tokens_per_s_per_gpu, r.tokens_per_s / 16);
  // The step is at least the pipeline and no more than pipeline + DP alone + optimizer.
  EXPECT_GE(r.time_s, r.pipeline_s);
  EXPECT_LE(r.time_s, r.pipeline_s + r.dp_grad_reduce_s + r.dp_param_gather_s + r.optimizer_s + 1e-12);
  // MFU: Megatron's model FLOPs over time, GPUs and the bf16 peak.
  EXPECT_NEAR(r.mfu, model_flops(s).step / (r.time_s * 16) / s.cluster.gpu.bf16_flops, 1e-12);
  // Causal mask: half the attention square runs, so the causal MFU is lower.
  EXPECT_NEAR(r.mfu_causal, model_flops(s).step_causal / (r.time_s * 16) / s.cluster.gpu.bf16_flops, 1e-12);
  EXPECT_LT(r.mfu_causal, r.mfu);
}

TEST(StepModel, DpReduceScatterEqualsItsAlphaBetaTime) {
  // tp=8 fills a node, dp=4 over 4 nodes: the DP x CP group is a ring of 4 ranks, one per node, each
  // hop over one NIC. NCCL ring reduce-scatter: (n-1) steps of one shard G/n, each alpha + shard/(B*eff).
  Scenario s = llama8b(4, 8, 1, 1);
  s.train.global_batch_size = 4;
  // The closed form is the nominal alpha-beta model: cost-model terms off (per-op bandwidth curves
  // and NCCL launch overheads would change it; they have their own tests in tests/cost).
  s.cluster.efficiency.terms = ModelTerms::all_off();
  const StepReport r = compose_step(s, fixed_layer());
  const double params = estimate_memory(s).parameters;
  const double n = 4, shard = 4.0 * params / n;   // fp32 gradients
  const CostModel cost(s);
  const double alpha = s.cluster.inter_node_latency_s;
  const double beta = s.cluster.nic_bandwidth_Bps * cost.link_efficiency(shard, LinkClass::InterNode);
  EXPECT_EQ(r.dp_group_size, 4);
  EXPECT_NEAR(r.dp_grad_reduce_s, (n - 1) * (alpha + shard / beta), 1e-12 * r.dp_grad_reduce_s + 1e-15);
  const double pshard = 2.0 * params / n;   // bf16 parameters
  const double beta_p = s.cluster.nic_bandwidth_Bps * cost.link_efficiency(pshard, LinkClass::InterNode);
  EXPECT_NEAR(r.dp_param_gather_s, (n - 1) * (alpha + pshard / beta_p), 1e-12 * r.dp_param_gather_s + 1e-15);
  // Without the distributed optimizer: one all-reduce of the whole gradient, 2(n-1) steps of G/n.
  s.ddp.use_distributed_optimizer = false;
  const StepReport ar = compose_step(s, fixed_layer());
  EXPECT_NEAR(ar.dp_grad_reduce_s, 2 * (n - 1) * (alpha + shard / beta), 1e-12 * ar.dp_grad_reduce_s + 1e-15);
  EXPECT_EQ(ar.dp_param_gather_s, 0.0);
}

TEST(StepModel, OverlapHidesGradientReduction) {
  Scenario s = llama8b(4, 8, 1, 1);
  s.train.global_batch_size = 4;
  const StepReport overlapped = compose_step(s, fixed_layer());
  s.ddp.overlap_grad_reduce = false;
  s.ddp.overlap_param_gather = false;
  const StepReport exposed = compose_step(s, fixed_layer());
  EXPECT_NEAR(exposed.dp_exposed_s, exposed.dp_grad_reduce_s + exposed.dp_param_gather_s, 1e-12);
  EXPECT_LT(overlapped.dp_exposed_s, exposed.dp_exposed_s);
  EXPECT_LT(overlapped.time_s, exposed.time_s);
}

TEST(StepModel, DoublingDpAtFixedGlobalBatchHalvesTheComputePart) {
  for (int pp : {1, 4}) {
    Scenario a = llama8b(2 * pp, 8, 1, pp);   // dp = 2
    Scenario b = llama8b(4 * pp, 8, 1, pp);   // dp = 4
    a.train.global_batch_size = b.train.global_batch_size = 32;
    const StepReport ra = compose_step(a, fixed_layer());
    const StepReport rb = compose_step(b, fixed_layer());
    EXPECT_EQ(ra.micro_batches, 2 * rb.micro_batches);
    // Compute part: the busiest stage's work, m x (stage forward + backward).
    const double ca = ra.micro_batches * (ra.stage_forward_s + ra.stage_backward_s);
    const double cb = rb.micro_batches * (rb.stage_forward_s + rb.stage_backward_s);
    EXPECT_NEAR(cb, ca / 2, 1e-12 * ca) << "pp=" << pp;
    if (pp == 1) {
      EXPECT_NEAR(rb.pipeline_s, ra.pipeline_s / 2, 1e-12 * ra.pipeline_s);
    }
  }
}

TEST(StepModel, RecomputationAddsTheForwardAgain) {
  Scenario s = llama8b(1, 8, 1, 1);
  const StepReport none = compose_step(s, fixed_layer());
  s.model.recompute_granularity = RecomputeGranularity::Full;
  const StepReport full = compose_step(s, fixed_layer());
  EXPECT_NEAR(full.stage_backward_s - none.stage_backward_s, 32 * 1e-3, 1e-12);
  EXPECT_NEAR(full.recompute_s, 32 * 1e-3, 1e-12);
  s.model.recompute_method = RecomputeMethod::Block;
  s.model.recompute_num_layers = 4;
  EXPECT_NEAR(compose_step(s, fixed_layer()).recompute_s, 4 * 1e-3, 1e-12);
  s.model.recompute_granularity = RecomputeGranularity::Selective;
  EXPECT_NEAR(compose_step(s, fixed_layer()).recompute_s, 32 * 0.4e-3, 1e-12);
  // non_attention (DistFlashAttn's checkpoint at the attention output): the layer forward without
  // its attention, every layer.
  s.model.recompute_granularity = RecomputeGranularity::NonAttention;
  const StepReport non_attention = compose_step(s, fixed_layer());
  EXPECT_NEAR(non_attention.recompute_s, 32 * (1e-3 - 0.4e-3), 1e-12);
  EXPECT_NEAR(non_attention.stage_backward_s - none.stage_backward_s, 32 * 0.6e-3, 1e-12);
  LayerTimes attention_only = fixed_layer();   // attention-only layer times: nothing else to recompute
  attention_only.layer_forward_s = attention_only.attention_forward_s;
  EXPECT_NEAR(compose_step(s, attention_only).recompute_s, 0.0, 1e-15);
  // Model FLOPs do not count recomputation: same FLOPs, longer step, lower MFU.
  EXPECT_LT(full.mfu, none.mfu);
}

// selective_op (torchtitan's op-level policy): wk, wo and w3 again, then the layer's elementwise
// forward; priced as those GEMMs' FLOPs (K's share of QKV, all of the output projection, half of FC1).
TEST(StepModel, SelectiveOpRecomputesEverySecondMatmulAndTheElementwiseOps) {
  Scenario s = llama8b(1, 8, 1, 1);
  s.model.elementwise_ops = ElementwiseOps::Fused;
  s.model.recompute_granularity = RecomputeGranularity::SelectiveOp;
  const StepWork w = step_work(s);
  ASSERT_EQ(w.layer_recompute_forward.size(), 3u);
  const double m = 16384, h = 4096, tp = 8;
  double flops = 0;
  for (const Kernel& k : w.layer_recompute_forward) flops += k.flops;
  // K: 8 KV heads x 128 of 4096 + 2 x 1024 QKV columns; O: 4096 x 4096; w3: 14336 of FC1's 2 x 14336.
  EXPECT_NEAR(flops, 2 * m * h * (1024 + 4096 + 14336) / tp, 1.0);
  const StepReport op = compose_step(s, fixed_layer());
  const CostModel cost(s);
  // Each kernel priced alone by the cost model, one after the other.
  auto seconds_of = [&](const std::vector<Kernel>& ks) {
    double total = 0;
    for (const Kernel& k : ks) {
      TaskGraph g;
      Task t;
      t.kind = k.kind;
      t.flops = k.flops;
      t.bytes = k.bytes;
      total += cost.compute_seconds(g, g.task(g.add_task(t, k.label)));
    }
    return total;
  };
  const double recompute_layer_s = seconds_of(w.layer_recompute_forward);
  const double ew_s = seconds_of(w.layer_elementwise_forward);
  EXPECT_NEAR(op.recompute_s, 32 * (recompute_layer_s + ew_s), 1e-9);
  s.model.recompute_granularity = RecomputeGranularity::Selective;
  EXPECT_EQ(step_work(s).layer_recompute_forward.size(), 0u);
}

TEST(StepModel, PrefillTimeToFirstTokenIsTheForwardThroughEveryStage) {
  Scenario s = llama8b(4, 8, 1, 4);
  s.train.mode = TrainMode::Prefill;
  const StepReport r = compose_step(s, fixed_layer());
  EXPECT_EQ(r.mode, "prefill");
  // 32 layers forward + embedding + last-token logits + 3 transfers between the 4 stages.
  EXPECT_NEAR(r.ttft_s, 32 * 1e-3 + r.embedding_s + r.output_layer_s + 3 * r.p2p_forward_s, 1e-12);
  EXPECT_GT(r.p2p_forward_s, 0);
  EXPECT_EQ(r.stage_backward_s, 0);
  EXPECT_EQ(r.dp_grad_reduce_s, 0);
  EXPECT_DOUBLE_EQ(r.time_s, r.ttft_s);   // one sequence per replica
}

TEST(StepModel, ModelFlopsFollowMegatronsCount) {
  // Forward FLOPs per token = 2 x (GEMM weights of every layer + output layer) + attention square.
  const Scenario s = llama8b(1, 1, 1, 1);
  const ModelFlops f = model_flops(s);
  MemoryOptions o;
  const double weights = model_parameter_count(s, o);
  const double h = 4096, L = 32, V = 128256, S = 16384;
  const double gemm_weights = weights - V * h /* input embedding */ - L * 2 * h /* norms */ - h /* final norm */;
  const double square = L * 4 * 32 * 128 * S;
  EXPECT_NEAR(f.per_token_forward, 2 * gemm_weights + square, 1e-9 * f.per_token_forward);
  EXPECT_NEAR(f.per_token_forward - f.per_token_forward_causal, square / 2, 1e-9 * square);
  ASSERT_EQ(s.global_batch(), 8);   // not given: micro_batch_size x dp = 1 x 8
  EXPECT_NEAR(f.step, 3 * 8 * S * f.per_token_forward, 1e-9 * f.step);
}

TEST(StepModel, LayerCompositionMatchesAMultiLayerGraph) {
  // The step multiplies one layer's times by the layers of a stage. On a 4-layer model the analytic
  // backend's graph of all 4 layers (forward then backward, chained per rank) must take the same
  // time within 1 %.
  Scenario s = llama8b(1, 2, 4, 1);
  s.model.num_layers = 4;
  s.model.cp_comm_type = {CpCommType::P2P};
  AnalyticBackend backend;
  SimulateOptions so;
  so.keep_events = false;
  so.compose_step = false;
  s.simulation.layers = 1;
  const Report one = simulate_scenario(s, backend, so).report;
  s.simulation.layers = 4;
  const Report four = simulate_scenario(s, backend, so).report;
  const double composed = 4 * (one.layer_forward_s + one.layer_backward_s);
  EXPECT_NEAR(four.makespan_s, composed, 0.01 * composed);
  // predict_step runs only the model-parallel slice; on this one-node job it is the same graph.
  s.simulation.layers = 1;
  const StepReport via_slice = predict_step(s, backend);
  const StepReport via_full = compose_step(s, layer_times_of(one));
  EXPECT_NEAR(via_slice.time_s, via_full.time_s, 1e-9 * via_full.time_s);
}

TEST(StepModel, ReplicasSimulatedOnceGiveTheWholeClustersStep) {
  // 4 nodes: tp 4 x cp 2 = one node, pp 2, dp 2. The graph of every rank and the graph of one
  // TP x CP group must give the same layer times and therefore the same step.
  Scenario s = llama8b(4, 4, 2, 2);
  s.train.global_batch_size = 8;
  AnalyticBackend backend;
  SimulateOptions all, once;
  all.keep_events = once.keep_events = false;
  all.replicas_once = false;
  const SimulationResult whole = simulate_scenario(s, backend, all);
  const SimulationResult sliced = simulate_scenario(s, backend, once);
  EXPECT_EQ(whole.report.world_size, 32);
  EXPECT_EQ(sliced.report.world_size, 8);
  EXPECT_EQ(sliced.report.cluster_world_size, 32);
  ASSERT_TRUE(whole.report.step && sliced.report.step);
  EXPECT_NEAR(sliced.report.step->time_s, whole.report.step->time_s, 1e-9 * whole.report.step->time_s);
  EXPECT_NEAR(sliced.report.layer_backward_s, whole.report.layer_backward_s, 1e-12);
}

TEST(StepModel, SliceKeepsOneModelParallelGroupPerNode) {
  Scenario s = llama8b(64, 8, 4, 4);   // 512 GPUs: tp 8 x cp 4 = 32 GPUs = 4 nodes
  Scenario t = model_parallel_slice(s);
  EXPECT_EQ(t.cluster.nodes, 4);
  EXPECT_EQ(t.pp(), 1);
  EXPECT_EQ(t.world_size() % (t.tp() * t.cp()), 0);
  Scenario small = llama8b(4, 2, 2, 1);   // tp 2 x cp 2 = 4 GPUs: the node's two replicas
  EXPECT_EQ(model_parallel_slice(small).cluster.nodes, 1);
}

// model.overlap_p2p_comm (Megatron's): unset, the interleaved schedule overlaps its sends and the
// plain 1F1B blocks on them, as Megatron-LM runs them; stated false, interleaving blocks too.
TEST(StepModel, BlockingPipelineSendsLengthenTheStepByTheirTransfers) {
  Scenario s = llama8b(2, 2, 1, 4);   // pp 4 across two nodes: some boundaries cross the network
  s.train.global_batch_size = 16;
  s.model.num_layers = 32;
  s.model.virtual_pipeline_model_parallel_size = 2;
  const StepReport overlapped = compose_step(s, fixed_layer());
  ASSERT_GT(overlapped.p2p_forward_s, 0);
  s.model.overlap_p2p_comm = false;
  const StepReport blocking = compose_step(s, fixed_layer());
  // Every stage waits for at least its own sends; never faster, and no longer than when every
  // step of the busiest stage added one transfer each way.
  const double steps = 2.0 * overlapped.micro_batches * 2;   // forward + backward, m micro-batches, 2 chunks
  EXPECT_GT(blocking.pipeline_s, overlapped.pipeline_s);
  EXPECT_LE(blocking.pipeline_s,
            overlapped.pipeline_s + steps * std::max(overlapped.p2p_forward_s, overlapped.p2p_backward_s) + 1e-12);
  s.model.overlap_p2p_comm.reset();
  s.model.virtual_pipeline_model_parallel_size = 1;
  EXPECT_FALSE(s.model.p2p_overlapped());   // Megatron-LM turns it off without interleaving
  const double unset_s = compose_step(s, fixed_layer()).pipeline_s;
  // Stated true on the plain 1F1B (validate refuses it; compose_step takes it as stated): faster.
  s.model.overlap_p2p_comm = true;
  EXPECT_LT(compose_step(s, fixed_layer()).pipeline_s, unset_s);
}

}  // namespace
}  // namespace hcpsim::step
