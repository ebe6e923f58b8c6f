// Memory model against hand-computed cases. Expected numbers are derived in the comments from the
// cited sources (published parameter counts, Megatron's distributed-optimizer table, Korthikanti et
// al. 2022, the message sizes of docs/schedules.md), not printed by the code under test.
#include <gtest/gtest.h>

#include "engine/memory/memory_model.h"
#include "tests/support/llama3_models.h"

namespace hcpsim {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

Scenario llama3_70b(int tp, int cp, int nodes) {
  Scenario s = test::scenario_of_shape(test::kLlama3_70B);
  s.model.seq_length = 131072;
  s.model.tensor_model_parallel_size = tp;
  s.model.context_parallel_size = cp;
  s.cluster.nodes = nodes;
  s.cluster.gpus_per_node = 8;
  return s;
}

Scenario llama3_8b() {
  Scenario s = test::scenario_of_shape(test::kLlama3_8B);
  s.model.seq_length = 8192;
  return s;
}

TEST(MemoryModel, ParameterCountsMatchPublishedLlama3Sizes) {
  // Published sizes of the Hugging Face checkpoints: Llama-3-8B 8,030,261,248 and
  // Llama-3-70B 70,553,706,496 parameters (untied embeddings, vocab 128256).
  EXPECT_DOUBLE_EQ(model_parameter_count(llama3_8b()), 8030261248.0);
  EXPECT_DOUBLE_EQ(model_parameter_count(llama3_70b(1, 1, 1)), 70553706496.0);
}

TEST(MemoryModel, MixedPrecisionAdamIs18BytesPerParamWithoutDistributedOptimizer) {
  // Megatron-Core distributed optimizer guide: bf16 params + fp32 grads = 18 bytes/param.
  MemoryOptions o;
  o.distributed_optimizer = false;
  const Scenario s = llama3_70b(8, 2, 4);   // world 32, dp 2
  const MemoryEstimate m = estimate_memory(s, o);
  EXPECT_DOUBLE_EQ((m.weights_bytes + m.gradients_bytes + m.optimizer_bytes) / m.parameters, 18.0);
}

TEST(MemoryModel, DistributedOptimizerIs6Plus12OverDpTimesCp) {
  // Same guide: 6 + 12/d bytes/param, d = the ranks the optimizer is sharded over; Megatron shards
  // over the data-parallel group with CP, so d = dp * cp = 2 * 2 = 4 here: 6 + 3 = 9 bytes/param.
  const Scenario s = llama3_70b(8, 2, 4);
  ASSERT_EQ(s.dp(), 2);
  const MemoryEstimate m = estimate_memory(s);
  EXPECT_DOUBLE_EQ((m.weights_bytes + m.gradients_bytes + m.optimizer_bytes) / m.parameters, 9.0);
}

TEST(MemoryModel, PerGpuParametersOfLlama70bAtTp8) {
  // Per layer on one of 8 TP ranks: Q,O 2*8192*(64/8)*128 = 16,777,216; K,V with 1 KV head per rank
  // 2*8192*1*128 = 2,097,152; SwiGLU 3*8192*28672/8 = 88,080,384; norms 16,384 -> 106,971,136.
  // 80 layers = 8,557,690,880; input + output embedding 2*128256*8192/8 = 262,668,288; final norm
  // 8192 -> 8,820,367,360.
  const MemoryEstimate m = estimate_memory(llama3_70b(8, 2, 4));
  EXPECT_DOUBLE_EQ(m.parameters, 8820367360.0);
}

TEST(MemoryModel, ActivationsReduceToKorthikantiWithoutSequenceParallel) {
  // Korthikanti et al. 2022, eq. for TP without SP: s*b*h*(10 + 24/t + 5*a*s/(h*t)) per layer.
  // In a GPT layout (MHA, GeLU MLP with ffn = 4h, dropout) our itemisation must give exactly the
  // linear terms; the 5as/(ht) softmax term is replaced by FlashAttention's fp32 LSE, 4*s*b*a/t.
  Scenario s;
  s.model.num_layers = 4;
  s.model.hidden_size = 1024;
  s.model.ffn_hidden_size = 4096;
  s.model.num_attention_heads = 16;
  s.model.seq_length = 8192;
  s.model.tensor_model_parallel_size = 4;
  s.model.context_parallel_size = 2;
  s.cluster.nodes = 1;
  MemoryOptions o;
  o.gated_mlp = false;
  o.dropout = true;
  const double sbh = (8192.0 / 2) * 1 * 1024;   // s = S / cp tokens per rank
  const double lse = 4.0 * (8192.0 / 2) * 16 / 4;
  const MemoryEstimate m = estimate_memory(s, o);
  EXPECT_DOUBLE_EQ(m.activation_bytes_per_layer, sbh * (10.0 + 24.0 / 4) + lse);
  // With sequence parallelism: 34*s*b*h/t.
  s.model.sequence_parallel = true;
  EXPECT_DOUBLE_EQ(estimate_memory(s, o).activation_bytes_per_layer, sbh * 34.0 / 4 + lse);
  // Selective recomputation drops the attention core's own tensors (here: the LSE).
  o.recompute = Recompute::Selective;
  EXPECT_DOUBLE_EQ(estimate_memory(s, o).activation_bytes_per_layer, sbh * 34.0 / 4);
  // Full recomputation keeps only each layer's input (2*s*b*h/t with SP) plus one layer's working set.
  o.recompute = Recompute::Full;
  const MemoryEstimate full = estimate_memory(s, o);
  EXPECT_DOUBLE_EQ(full.activation_bytes_per_layer, 2.0 * sbh / 4);
  EXPECT_DOUBLE_EQ(full.activations_bytes, 4 * 2.0 * sbh / 4 + sbh * 34.0 / 4 + lse);
}

TEST(MemoryModel, Llama70bLayerActivationsWithGqaSwigluAndCp) {
  // tp=2 cp=16 SP, S=128K -> s = 8192 tokens, h = 8192, 32 query and 4 KV heads per TP rank:
  //   LN inputs + QKV input + MLP input: 4 * 2 B * 8192 * 8192 / 2      =   268,435,456
  //   Q: 2 * 8192 * 32 * 128 = 67,108,864;  K+V: 2 * 2 * 8192 * 4 * 128 =    16,777,216
  //   attention output (proj input): 2 * 8192 * 32 * 128                 =    67,108,864
  //   SwiGLU: fc1 out (2 * 14336) + act out (14336): 2 * 8192 * 43008    =   704,643,072
  //   LSE: 4 * 8192 * 32                                                  =     1,048,576
  //   total                                                               = 1,125,122,048
  Scenario s = llama3_70b(2, 16, 4);
  s.model.sequence_parallel = true;
  const MemoryEstimate m = estimate_memory(s);
  EXPECT_DOUBLE_EQ(m.activation_bytes_per_layer, 1125122048.0);
  EXPECT_DOUBLE_EQ(m.activations_bytes, 80 * 1125122048.0);
}

TEST(MemoryModel, RingBuffersMatchSpecMessageSizes) {
  // Sizes of docs/schedules.md, tp2 cp8 Llama-70B 128K: s = 16384, M_kv = 32 MiB, T_o = 128 MiB; LSE 16384*32*4 = 2 MiB.
  // docs/schedules.md "Memory the schedules keep": forward keeps R = 8 KV buffers + 8 partial outputs/LSEs; backward 2 x 2*M_kv.
  Scenario s = llama3_70b(2, 8, 2);
  s.model.cp_comm_type = {CpCommType::P2P};
  MemoryEstimate m = estimate_memory(s);
  EXPECT_DOUBLE_EQ(m.cp_forward_buffers_bytes, (8 * 32 + 8 * (128 + 2)) * kMiB);
  EXPECT_DOUBLE_EQ(m.cp_backward_buffers_bytes, 4 * 32 * kMiB);
  EXPECT_EQ(m.comm_type, "p2p");
  // all_gather: full K/V in forward (8 * 32 MiB), re-gathered K/V + full dK/dV in backward.
  s.model.cp_comm_type = {CpCommType::AllGather};
  m = estimate_memory(s);
  EXPECT_DOUBLE_EQ(m.cp_forward_buffers_bytes, 256 * kMiB);
  EXPECT_DOUBLE_EQ(m.cp_backward_buffers_bytes, 512 * kMiB);
  EXPECT_DOUBLE_EQ(m.cp_buffers_bytes, 512 * kMiB);
  // a2a+p2p [2,4]: a2a staging of Q, K, V, O (128 + 16 + 16 + 128 MiB) + ring of 4.
  s.model.cp_comm_type = {CpCommType::A2AP2P};
  s.model.hierarchical_context_parallel_sizes = {2, 4};
  m = estimate_memory(s);
  EXPECT_DOUBLE_EQ(m.cp_forward_buffers_bytes, (288 + 4 * 32 + 4 * (128 + 2)) * kMiB);
  EXPECT_DOUBLE_EQ(m.cp_backward_buffers_bytes, (288 + 4 * 32) * kMiB);
}

TEST(MemoryModel, NoCpBuffersWithoutCp) {
  EXPECT_DOUBLE_EQ(estimate_memory(llama3_70b(8, 1, 1)).cp_buffers_bytes, 0.0);
}

TEST(MemoryModel, FitsFlagFollowsCapacity) {
  // Llama-70B at tp=1: 70.5e9 params * 6 B (bf16 weights + fp32 grads) alone is > 400 GB.
  const MemoryEstimate big = estimate_memory(llama3_70b(1, 8, 1));
  EXPECT_GT(big.total_bytes, 400e9);
  EXPECT_FALSE(big.fits);
  // Llama-8B at 8K, tp=8 cp=1 on one node: 1.0e9 params/GPU * (6 + 12/1) B ~ 18 GB + ~10 GB activations.
  Scenario s = llama3_8b();
  s.model.tensor_model_parallel_size = 8;
  s.model.sequence_parallel = true;
  const MemoryEstimate small = estimate_memory(s);
  EXPECT_LT(small.total_bytes, 40e9);
  EXPECT_TRUE(small.fits);
  EXPECT_DOUBLE_EQ(small.capacity_bytes, 81559.0 * 1024 * 1024);   // an H100 as nvidia-smi reports it
  s.cluster.gpu.memory_bytes = small.total_bytes - 1;
  EXPECT_FALSE(estimate_memory(s).fits);
}

TEST(MemoryModel, RejectsZeroSizesAndUnknownRecompute) {
  Scenario s;
  EXPECT_THROW(estimate_memory(s), std::invalid_argument);
  EXPECT_THROW(parse_recompute("partial"), std::invalid_argument);
  EXPECT_EQ(parse_recompute("selective"), Recompute::Selective);
}

}  // namespace
}  // namespace hcpsim
