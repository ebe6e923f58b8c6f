// The step's scenario inputs (Megatron-Bridge names): parsing, defaults, Megatron's divisibility
// rules with FILE:LINE:COL, FP8 on GPUs without an FP8 peak, and memory presets in device units.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "engine/cost/cost_model.h"
#include "engine/graph/task_graph.h"
#include "engine/memory/memory_model.h"
#include "engine/scenario/loader.h"
#include "engine/validate/validate.h"

namespace hcpsim {
namespace {

LoadOptions presets() {
  LoadOptions o;
  o.hardware_dir = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/hardware";
  return o;
}

std::string yaml(const std::string& extra_model, const std::string& rest, int nodes = 2) {
  return "name: step-inputs\n"
         "model:\n"
         "  num_layers: 32\n"
         "  hidden_size: 4096\n"
         "  ffn_hidden_size: 14336\n"
         "  num_attention_heads: 32\n"
         "  num_query_groups: 8\n"
         "  seq_length: 16384\n"
         "  tensor_model_parallel_size: 4\n"
         "  pipeline_model_parallel_size: 2\n" +
         extra_model + rest + "cluster:\n  preset: dgx-h100\n  nodes: " + std::to_string(nodes) + "\n";
}

const Diagnostic* first_error(const Diagnostics& d, const std::string& path) {
  for (const auto& x : d.items())
    if (x.severity == Severity::Error && x.path == path) return &x;
  return nullptr;
}

TEST(StepInputs, TpCommOverlapNeedsSequenceParallelism) {
  const Scenario s = load_scenario_string(yaml("  tp_comm_overlap: true\n", ""), presets(), "job.yaml");
  EXPECT_TRUE(s.model.tp_comm_overlap);
  const Diagnostic* e = first_error(validate(s), "model.tp_comm_overlap");
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->message.find("sequence-parallel"), std::string::npos) << e->message;
  EXPECT_GT(e->line, 0);
  const Scenario ok =
      load_scenario_string(yaml("  tp_comm_overlap: true\n  sequence_parallel: true\n", ""), presets(), "job.yaml");
  EXPECT_EQ(first_error(validate(ok), "model.tp_comm_overlap"), nullptr);
}

TEST(StepInputs, BridgeNamesAreRead) {
  const Scenario s = load_scenario_string(
      yaml("  virtual_pipeline_model_parallel_size: 2\n  recompute_granularity: full\n  recompute_method: block\n"
           "  recompute_num_layers: 2\n  fp8: hybrid\n  vocab_size: 32000\n",
           "train:\n  micro_batch_size: 1\n  global_batch_size: 16\n"
           "ddp:\n  use_distributed_optimizer: false\n  overlap_grad_reduce: false\n"),
      presets());
  EXPECT_EQ(s.vpp(), 2);
  EXPECT_EQ(s.model.recompute_granularity, RecomputeGranularity::Full);
  EXPECT_EQ(s.model.recompute_method, RecomputeMethod::Block);
  EXPECT_EQ(s.model.recompute_num_layers, 2);
  EXPECT_TRUE(s.fp8_enabled());
  EXPECT_FALSE(s.model.fp8_dot_product_attention);
  EXPECT_EQ(s.model.vocab_size, 32000);
  EXPECT_EQ(s.train.global_batch_size, 16);
  EXPECT_FALSE(s.ddp.use_distributed_optimizer);
  EXPECT_FALSE(s.ddp.overlap_grad_reduce);
  EXPECT_TRUE(s.ddp.overlap_param_gather);
  EXPECT_EQ(s.dp(), 2);                    // 16 GPUs / (tp 4 x pp 2)
  EXPECT_EQ(s.micro_batches(), 16 / 2);
  EXPECT_FALSE(validate(s).has_errors()) << format_diagnostics(validate(s), "x");
}

TEST(StepInputs, GlobalBatchMustDivideByMicroBatchTimesDp) {
  const Scenario s = load_scenario_string(yaml("", "train:\n  micro_batch_size: 2\n  global_batch_size: 6\n"), presets(),
                                          "job.yaml");
  const Diagnostics d = validate(s);
  const Diagnostic* e = first_error(d, "train.global_batch_size");
  ASSERT_NE(e, nullptr) << format_diagnostics(d, "job.yaml");
  EXPECT_EQ(e->message, "global batch size (6) is not divisible by micro batch size (2) times data parallel size (2)");
  EXPECT_EQ(e->line, 13);   // the key's line in the text above
  EXPECT_GT(e->column, 0);
  ASSERT_FALSE(e->hints.empty());
  EXPECT_NE(e->hints[0].find("4 or 8"), std::string::npos) << e->hints[0];
}

TEST(StepInputs, LayersMustDivideByPipelineTimesVirtualStages) {
  const Scenario s = load_scenario_string(yaml("  virtual_pipeline_model_parallel_size: 3\n", ""), presets());
  const Diagnostics d = validate(s);
  const Diagnostic* e = first_error(d, "model.virtual_pipeline_model_parallel_size");
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->message.find("num_layers (32) must be divisible by"), std::string::npos) << e->message;
  EXPECT_NE(e->hints.at(0).find("1, 2, 4, 8, 16"), std::string::npos) << e->hints.at(0);
  EXPECT_GT(e->line, 0);
}

TEST(StepInputs, InterleavingNeedsMicroBatchesDivisibleByStages) {
  // dp = 2, mbs 1, gbs 6 -> 3 micro-batches, not a multiple of pp = 2.
  const Scenario s = load_scenario_string(
      yaml("  virtual_pipeline_model_parallel_size: 2\n", "train:\n  global_batch_size: 6\n"), presets());
  const Diagnostics d = validate(s);
  const Diagnostic* e = first_error(d, "train.global_batch_size");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->message,
            "number of microbatches (3) is not divisible by pipeline-model-parallel-size (2) when using interleaved schedule");
}

TEST(StepInputs, RecomputeMethodNeedsFullGranularityAndFp8NeedsAnFp8Gpu) {
  const Scenario s = load_scenario_string(
      yaml("  recompute_granularity: selective\n  recompute_method: uniform\n  fp8: hybrid\n", "") , presets());
  const Diagnostics d = validate(s);
  const Diagnostic* e = first_error(d, "model.recompute_method");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->message, "recompute method is not yet supported for selective recomputing granularity");
  EXPECT_EQ(first_error(d, "model.fp8"), nullptr);   // H100 has FP8
  LoadOptions a100 = presets();
  a100.overrides = {"cluster.preset=dgx-a100"};
  const Scenario t = load_scenario_string(yaml("  fp8: hybrid\n", ""), a100);
  const Diagnostics dt = validate(t);
  const Diagnostic* f = first_error(dt, "model.fp8");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("has no FP8 peak"), std::string::npos) << f->message;
  // Invalid names are rejected while loading, with the valid values.
  EXPECT_THROW(load_scenario_string(yaml("  recompute_granularity: partial\n", ""), presets()), ScenarioError);
  EXPECT_THROW(load_scenario_string(yaml("", "train:\n  mode: decode\n"), presets()), ScenarioError);
}

TEST(StepInputs, MemoryPresetsAreWhatTheDeviceReports) {
  const Scenario h100 = load_scenario_string(yaml("", ""), presets());
  EXPECT_DOUBLE_EQ(h100.cluster.gpu.memory_bytes, 81559.0 * 1024 * 1024);   // nvidia-smi: 81559 MiB
  EXPECT_DOUBLE_EQ(h100.cluster.gpu.fp8_flops, 1979e12);
  LoadOptions o = presets();
  o.overrides = {"cluster.preset=dgx-h200"};
  EXPECT_DOUBLE_EQ(load_scenario_string(yaml("", ""), o).cluster.gpu.memory_bytes, 143771.0 * 1024 * 1024);
  o.overrides = {"cluster.preset=dgx-a100"};
  const Scenario a100 = load_scenario_string(yaml("", ""), o);
  EXPECT_DOUBLE_EQ(a100.cluster.gpu.memory_bytes, 80.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(a100.cluster.gpu.fp8_flops, 0.0);
}

TEST(StepInputs, InterleavingRaisesTheFirstStagesActivations) {
  // Korthikanti et al. section 4.2.3: the first stage keeps L (1 + (p-1)/(p v)) layers of
  // activations with v virtual stages, L with 1F1B (enough micro-batches: m >= p).
  Scenario s = load_scenario_string(yaml("", "train:\n  global_batch_size: 16\n"), presets());
  const double one = estimate_memory(s).activations_bytes;
  s.model.virtual_pipeline_model_parallel_size = 2;
  const double two = estimate_memory(s).activations_bytes;
  EXPECT_NEAR(two / one, 1.0 + 1.0 / 4.0, 1e-12);   // p = 2, v = 2
  // Prefill keeps the KV cache and no gradients or optimizer states.
  s.train.mode = TrainMode::Prefill;
  const MemoryEstimate p = estimate_memory(s);
  EXPECT_EQ(p.gradients_bytes, 0.0);
  EXPECT_EQ(p.optimizer_bytes, 0.0);
  EXPECT_DOUBLE_EQ(p.kv_cache_bytes, 16.0 /* layers on the stage */ * 2 /* bytes */ * 16384 * 2 * (8 / 4) * 128);
}

}  // namespace
}  // namespace hcpsim

namespace hcpsim {
namespace {

TEST(StepInputs, Fp8RunsGemmsAtTheFp8PeakAndAttentionInBf16) {
  Scenario s = load_scenario_string(yaml("", ""), presets());
  // The FP8 peak alone: the terms that refine it (GEMM shapes, FP8's own work) have their own tests.
  s.cluster.efficiency.terms.gemm_shapes = false;
  s.cluster.efficiency.terms.fp8_work = false;
  TaskGraph g;
  Task gemm;
  gemm.kind = TaskKind::Gemm;
  gemm.flops = 1e13;
  Task attn;
  attn.kind = TaskKind::AttentionForward;
  attn.flops = 1e13;
  const CostModel bf16(s);
  s.model.fp8 = "hybrid";
  const CostModel fp8(s);
  const double o = bf16.kernel_overhead_s();
  // Same efficiency, twice the peak (1979 vs 989 TFLOPS dense on an H100).
  EXPECT_NEAR((bf16.compute_seconds(g, gemm) - o) / (fp8.compute_seconds(g, gemm) - o), 1979.0 / 989.0, 1e-9);
  EXPECT_DOUBLE_EQ(fp8.compute_seconds(g, attn), bf16.compute_seconds(g, attn));
  s.model.fp8_dot_product_attention = true;
  const CostModel fp8_attn(s);
  EXPECT_NEAR((bf16.compute_seconds(g, attn) - o) / (fp8_attn.compute_seconds(g, attn) - o), 1979.0 / 989.0, 1e-9);
}

TEST(StepInputs, OverlapP2pCommNeedsTheInterleavedSchedule) {
  const Scenario s = load_scenario_string(yaml("  overlap_p2p_comm: true\n", ""), presets(), "job.yaml");
  EXPECT_EQ(s.model.overlap_p2p_comm, std::optional<bool>(true));
  const Diagnostic* e = first_error(validate(s), "model.overlap_p2p_comm");
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->message.find("interleaved"), std::string::npos) << e->message;
  EXPECT_GT(e->line, 0);
  const Scenario ok = load_scenario_string(
      yaml("  overlap_p2p_comm: false\n", ""), presets(), "job.yaml");
  EXPECT_EQ(first_error(validate(ok), "model.overlap_p2p_comm"), nullptr);
  EXPECT_FALSE(ok.model.p2p_overlapped());
  const Scenario vpp = load_scenario_string(
      yaml("  overlap_p2p_comm: true\n  virtual_pipeline_model_parallel_size: 2\n", ""), presets(), "job.yaml");
  EXPECT_EQ(first_error(validate(vpp), "model.overlap_p2p_comm"), nullptr);
  EXPECT_TRUE(vpp.model.p2p_overlapped());
  EXPECT_THROW(load_scenario_string(yaml("  overlap_p2p_comm: sometimes\n", ""), presets(), "job.yaml"),
               std::exception);
}

}  // namespace
}  // namespace hcpsim
