#pragma once
// Scenario: what is trained (model + Megatron parallel config), on what (cluster) and how it is
// predicted (simulation options). Field names: docs/scenario.md. All quantities are in
// SI base units after loading: bytes, seconds, bytes/s, FLOP/s.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/scenario/hyperparallel_config.h"

namespace hcpsim {

// DistFlashAttn: DistFlashAttn's load-balanced causal ring (docs/schedules.md "DistFlashAttn"), not a
// Transformer Engine comm type; spelled `dfa` in model.cp_comm_type.
enum class CpCommType { P2P, AllGather, A2A, A2AP2P, DistFlashAttn };
enum class MaskType { Causal, NoMask };
enum class DType { BF16, FP16 };
enum class Topology { FatTree, Star };
// train.mode: a training step (forward + backward + DP + optimizer) or a long-context prefill
// (forward only of the whole model, time to first token).
enum class TrainMode { Train, Prefill };
// Megatron's recompute_granularity (None = not set) and recompute_method. NonAttention is hcpsim's
// name for DistFlashAttn's rematerialization-aware checkpointing: the checkpoint sits at the
// attention output, so the backward recomputes every layer's forward except the core attention
// (the opposite of Selective, which recomputes the core attention only). SelectiveOp is torchtitan's
// op-level selective checkpointing (selective_ac_option "op"): the outputs of the matmuls (except
// every second one of a block), of attention and of reduce-scatters are saved; everything else of the
// block is recomputed in the backward.
enum class RecomputeGranularity { None, Selective, Full, NonAttention, SelectiveOp };
enum class RecomputeMethod { Uniform, Block };
// model.elementwise_ops: the memory-bound kernels of a layer outside its GEMMs and core attention
// (two RMSNorms, rotary embedding of Q and K, the SwiGLU product, two residual adds), priced by
// the HBM bytes they read and write (docs/metrics.md section 11). None: not priced (the layer is its
// GEMMs, attention and collectives); Fused (the default): one kernel per op, as Transformer Engine /
// Megatron-Core fuse them; Unfused: PyTorch eager HuggingFace LLaMA, one kernel per tensor operation.
enum class ElementwiseOps { None, Fused, Unfused };

// "p2p", "all_gather", "a2a", "a2a+p2p"
const char* to_string(CpCommType t);
const char* to_string(MaskType m);
const char* to_string(DType d);
const char* to_string(Topology t);
const char* to_string(TrainMode m);
const char* to_string(RecomputeGranularity g);
const char* to_string(RecomputeMethod m);
const char* to_string(ElementwiseOps e);   // "none", "fused", "unfused"
int bytes_per_element(DType d);

struct GpuSpec {
  std::string name = "h100-sxm";
  double bf16_flops = 989e12;      // dense bf16 peak, FLOP/s
  double hbm_Bps = 3.35e12;        // HBM bandwidth, bytes/s
  double memory_bytes = 81559.0 * 1048576.0;   // device memory as the device reports it, bytes
  double fp8_flops = 1979e12;      // dense FP8 peak, FLOP/s (0 = the GPU has no FP8 tensor cores)
  int sm_count = 132;              // streaming multiprocessors (NCCL takes one per channel)
};

// Attention kernel family the scenario's attention runs on (TE with qkv_format sbhd: cuDNN).
enum class AttentionKernel { CuDNN, FA2, FA3 };
const char* to_string(AttentionKernel k);   // "cudnn", "fa2", "fa3"

// One switch per cost-model term (docs/metrics.md section 9). Every term is on by default; with all
// of them off the cost model is the nominal-efficiency model of sections 1-2.
struct ModelTerms {
  bool comm_compute_interference = true;   // NCCL kernels take SMs and HBM bandwidth from compute
  bool bandwidth_curves = true;            // achieved bandwidth per NCCL op (else one send/recv curve)
  bool host_overheads = true;              // NCCL launch and the ring loop's per-step host sync
  bool memory_operators = true;            // correction/merge/accumulation kernels priced as TE runs them
  bool attention_shapes = true;            // attention plateau by GPU, kernel family, mask and head dim
  bool nccl_rails = true;                  // NCCL channels spread inter-node traffic over several NICs (rails)
  bool nccl_ring_latency = true;           // ring collectives pipelined: NCCL's latency once per call, not per step
  bool nccl_protocols = true;              // LL / LL128 / Simple chosen by size as NCCL's tuning model does
  bool nccl_p2p_channels = true;           // a send/recv flow reaches at most NCCL's channels per peer x per-channel rate
  bool gemm_shapes = true;                 // GEMM efficiency by shape and precision (tiles, waves, depth), per GPU
  bool fp8_work = true;                    // FP8's casts/transposes by bytes, BF16 output layer, FP8 attention's own rate
  bool grad_norm = true;                   // the gradient-clipping norm over the gradient shard before the optimizer

  // Every term off: the nominal model the closed-form tests check.
  static ModelTerms all_off() {
    return {false, false, false, false, false, false, false, false, false, false, false, false};
  }
};

// Plateau efficiencies (fractions of peak) for large shapes; the cost model adds its own
// documented fall-off for small shapes on top of these.
struct Efficiency {
  double attention_forward = 0.62;
  double attention_backward = 0.50;
  double gemm = 0.75;
  double memory = 0.80;
  double intra_node_link = 0.82;
  double inter_node_link = 0.94;
  ModelTerms terms;                               // YAML: cluster.efficiency.model_terms
  AttentionKernel attention_kernel = AttentionKernel::CuDNN;
  // comm_compute_interference: weight of NCCL's HBM traffic in the compute slowdown (fitted).
  double comm_hbm_interference = 1.0;
  // host_overheads: host-side cost of launching one NCCL call, and the gap between the end of a
  // ring step's send/recv and the host's launch of the next step's kernels. Seconds.
  double nccl_launch_s = 6e-6;
  double ring_step_sync_s = 15e-6;
};

// A what-if fault. Exactly one of the three forms is set (docs/scenario.md "Faults").
struct Fault {
  enum class Kind { Straggler, DegradedNic, FailedNic };
  Kind kind = Kind::Straggler;
  int rank = -1;                 // Straggler: global rank whose kernels slow down
  double slowdown = 1.0;         // Straggler: kernel time multiplier (>= 1)
  int node = -1;                 // DegradedNic / FailedNic
  int nic = -1;                  // DegradedNic / FailedNic
  double bandwidth_factor = 1.0; // DegradedNic: multiplier on the NIC bandwidth, (0, 1]
};

struct ModelConfig {
  int num_layers = 0;
  int hidden_size = 0;
  int ffn_hidden_size = 0;               // 0 = not given (no whole-layer timing)
  int num_attention_heads = 0;
  int num_query_groups = 0;              // KV heads; defaults to num_attention_heads
  int kv_channels = 0;                   // head dim; defaults to hidden_size / num_attention_heads
  std::int64_t seq_length = 0;           // global sequence length, tokens
  MaskType attn_mask_type = MaskType::Causal;
  DType params_dtype = DType::BF16;
  int tensor_model_parallel_size = 1;
  int pipeline_model_parallel_size = 1;
  int context_parallel_size = 1;
  std::vector<CpCommType> cp_comm_type{CpCommType::P2P};   // one entry, or one per layer
  std::vector<int> hierarchical_context_parallel_sizes;    // [a2a, p2p] or empty
  bool sequence_parallel = false;
  // Megatron's tp_comm_overlap (Transformer Engine userbuffers): each sequence-parallel all-gather
  // and reduce-scatter split into tp chunks pipelined with the chunks of its GEMM (needs SP, tp > 1).
  bool tp_comm_overlap = false;
  int virtual_pipeline_model_parallel_size = 1;          // model chunks per pipeline rank (1 = no interleaving)
  // Megatron's overlap_p2p_comm: the pipeline's activation and gradient sends run asynchronously
  // beside the next step's compute (isend/irecv, waited for only when the input is needed). Unset:
  // Megatron-LM's own behaviour, on for the interleaved schedule (vpp > 1) and off without it, where
  // every send blocks its stage until the transfer has finished.
  std::optional<bool> overlap_p2p_comm;
  bool p2p_overlapped() const { return overlap_p2p_comm.value_or(virtual_pipeline_model_parallel_size > 1); }
  // Megatron's uneven pipeline split (engine/scenario/pipeline_split.h): the layers of the first and
  // of the last pipeline stage (unset: the stages share the layers evenly), or the input embedding
  // and the loss each counted as one layer of the split (on the first / last model chunk).
  std::optional<int> decoder_first_pipeline_num_layers;
  std::optional<int> decoder_last_pipeline_num_layers;
  bool account_for_embedding_in_pipeline_split = false;
  bool account_for_loss_in_pipeline_split = false;
  RecomputeGranularity recompute_granularity = RecomputeGranularity::None;
  RecomputeMethod recompute_method = RecomputeMethod::Uniform;   // full recompute only
  int recompute_num_layers = 1;                          // full recompute only: layers per group / block
  ElementwiseOps elementwise_ops = ElementwiseOps::Fused; // layer norms, RoPE, SwiGLU, residual adds by bytes
  std::string fp8;                                       // "" (off), "hybrid" or "e4m3" (Transformer Engine)
  std::string fp8_recipe = "delayed";                    // delayed, tensorwise, mxfp8, blockwise
  bool fp8_dot_product_attention = false;                // attention in FP8 too (off: bf16, TE's default)
  std::int64_t vocab_size = 128256;                      // padded vocabulary (Llama-3 tokenizer by default)
  bool untie_embeddings_and_output_weights = true;
  DsaConfig dsa;                                         // model.dsa (HyperParallel style DSA)
};

struct TrainConfig {
  int micro_batch_size = 1;
  int global_batch_size = 0;       // sequences per step; 0 = micro_batch_size x dp (one micro-batch)
  TrainMode mode = TrainMode::Train;
};

// Megatron's DistributedDataParallelConfig switches (Megatron-Bridge `ddp:` section).
struct DdpConfig {
  bool use_distributed_optimizer = true;
  bool overlap_grad_reduce = true;
  bool overlap_param_gather = true;
  // ZeRO-3 / FSDP full sharding (PyTorch FSDP FULL_SHARD, Megatron-FSDP optim_grads_params):
  // parameters, gradients and optimizer states sharded over the DP x CP group; each layer's
  // parameters are all-gathered before every forward (recomputed forwards too) and before its
  // backward, its gradients reduce-scattered after its backward (docs/planning.md "Parameter sharding").
  bool shard_parameters = false;
  // Megatron-Core's grad_reduce_in_fp32 (PyTorch FSDP: MixedPrecisionPolicy reduce_dtype fp32):
  // gradients reduced in fp32 (4 bytes) or in the parameters' dtype. Unset: fp32 for the DP
  // gradient buckets (Megatron-LM's default for BF16 training), the parameters' dtype for
  // shard_parameters (FSDP without a mixed-precision policy).
  std::optional<bool> grad_reduce_in_fp32;
};

struct DistConfig {
  bool use_decentralized_pg = false;
  std::string order = "tp-cp-ep-dp-pp";   // or "tp-cp-ep-pp-dp"
};

struct ClusterConfig {
  std::string preset;                 // whole-cluster preset name, if any
  int nodes = 1;
  int gpus_per_node = 8;
  GpuSpec gpu;
  double intra_node_bandwidth_Bps = 450e9;   // per GPU, per direction
  double intra_node_latency_s = 2e-6;
  bool intra_node_nvls = false;              // NVSwitch reduces in the switch (NVLink SHARP): all_reduce curve
  double nic_bandwidth_Bps = 50e9;           // per NIC, per direction
  int nics_per_node = 8;
  double inter_node_latency_s = 5e-6;
  Topology topology = Topology::FatTree;
  double oversubscription = 1.0;             // >1: fabric above the leaf is oversubscribed
  Efficiency efficiency;
  std::string calibration_path;              // resolved path of a calibration file, or empty
  std::vector<Fault> faults;
};

// simulation.fold: `auto` simulates identical replicas once when that is exact (engine/fold/fold_plan.h);
// `off` always simulates every rank.
enum class FoldMode { Auto, Off };

struct SimulationConfig {
  std::string backend = "simgrid";
  bool forward = true;
  bool backward = true;
  int layers = 1;                            // layers simulated explicitly
  FoldMode fold = FoldMode::Auto;
};

// Where a field came from in the YAML (for diagnostics). Keyed by dotted path.
struct SourceLocation {
  int line = 0;
  int column = 0;
  int override_index = 0;   // 1-based index of the `key=value` override that set it; 0 = from the file
};

struct Scenario {
  std::string name;
  std::string description;
  std::string source_path;                   // file it was loaded from ("" for strings)
  ModelConfig model;
  TrainConfig train;
  DistConfig dist;
  DdpConfig ddp;
  ClusterConfig cluster;
  SimulationConfig simulation;
  HyperParallelConfig hyperparallel;         // `hyperparallel:` (replaces cp_comm_type when enabled)
  std::map<std::string, SourceLocation> locations;   // dotted path -> YAML position
  std::vector<std::string> overrides;        // the `key.path=value` overrides applied, in order

  int world_size() const { return cluster.nodes * cluster.gpus_per_node; }
  int tp() const { return model.tensor_model_parallel_size; }
  int cp() const { return model.context_parallel_size; }
  int pp() const { return model.pipeline_model_parallel_size; }
  // world / (tp*cp*pp); 0 when not a whole number.
  int dp() const;
  int vpp() const { return model.virtual_pipeline_model_parallel_size; }
  // Sequences per step (global_batch_size, or micro_batch_size x dp when not given).
  int global_batch() const;
  // Micro-batches per pipeline per step, gbs / (mbs x dp); 0 when not a whole number.
  int micro_batches() const;
  bool fp8_enabled() const { return !model.fp8.empty(); }
  // cp_comm_type of a layer (0-based); a single entry applies to every layer.
  CpCommType comm_type_for_layer(int layer) const;
  // True when the `hyperparallel:` section selects MindSpore HyperParallel's CP instead of cp_comm_type.
  bool hyperparallel_cp() const { return hyperparallel.enabled; }
  // True when cp_comm_type selects DistFlashAttn (`dfa`; validation keeps it on every layer): the
  // sequence is sharded contiguously, one chunk per CP rank, instead of Megatron's dual chunks.
  bool distflashattn_cp() const;
  // Query heads and KV heads per TP rank (h_t, g_t of docs/schedules.md).
  int heads_per_tp_rank() const;
  int kv_heads_per_tp_rank() const;
  int head_dim() const;                      // kv_channels (resolved)
  SourceLocation location_of(const std::string& path) const;
  // The name for outputs: `name`, followed by "(with OVERRIDES)" when overrides changed the scenario,
  // so that a name such as "...-128k-..." never stands alone for a run at another length.
  std::string display_name() const;
  // The resolved configuration in one line: sequence, parallel sizes, comm types, cluster, backend.
  std::string configuration() const;
};

}  // namespace hcpsim
