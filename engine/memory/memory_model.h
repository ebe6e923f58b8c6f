#pragma once
// Per-GPU memory estimate of one scenario: weights, gradients, optimizer states, activations of the
// layers held on the GPU, and the transient buffers of the CP attention schedule (docs/planning.md "CP attention buffers").
// Formulas and their sources: docs/planning.md ("Memory model").
//   - bytes per parameter: Megatron-Core distributed optimizer guide (bf16 params + fp32 grads:
//     18 B/param, or 6 + 12/d with the distributed optimizer sharded over d = DP x CP ranks);
//   - activations: Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer
//     Models") itemised per tensor, adapted to GQA, a gated (SwiGLU) MLP, FlashAttention (no s^2
//     term; a fp32 log-sum-exp per query instead) and CP (s = S / cp tokens per rank).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/scenario/scenario.h"

namespace hcpsim {

enum class Recompute { None, Selective, Full };

// Knobs the scenario does not carry, and overrides of those it does (unset = the scenario's value).
struct MemoryOptions {
  std::optional<std::int64_t> vocab_size;        // default: model.vocab_size
  std::optional<bool> untied_embeddings;         // default: model.untie_embeddings_and_output_weights
  bool gated_mlp = true;                         // SwiGLU: 3 matrices h x ffn (false: 2 matrices, GeLU)
  bool dropout = false;                          // Llama trains without dropout (no 1-byte masks)
  std::optional<bool> distributed_optimizer;     // default: ddp.use_distributed_optimizer
  std::optional<Recompute> recompute;            // default: model.recompute_granularity
  double reserved_bytes = 2.0 * 1024 * 1024 * 1024;   // CUDA context, NCCL, allocator slack (assumption)
};

struct MemoryEstimate {
  double parameters = 0;            // parameters held by this GPU (count, not bytes)
  double weights_bytes = 0;         // bf16/fp16 model parameters (ddp.shard_parameters: shard + two gathered layers),
                                    // plus the FP8 copies and transposes of the layer weights with model.fp8
  double gradients_bytes = 0;       // fp32 main gradients (not sharded by the dist. optimizer; sharded with ddp.shard_parameters)
  double optimizer_bytes = 0;       // fp32 main params + Adam m and v (sharded over DP x CP if distributed)
  double activation_bytes_per_layer = 0;   // saved for backward, one layer, one micro-batch
  double activations_bytes = 0;     // all layers held in flight on this GPU (+ recompute working set)
  double logits_bytes = 0;          // output layer + cross-entropy (last pipeline stage)
  double kv_cache_bytes = 0;        // prefill: K and V of every layer held, for the decode that follows
  double micro_batches_in_flight = 0;      // training: layers' worth of activations kept / layers per stage
  double cp_forward_buffers_bytes = 0;     // CP attention buffers alive during one layer's forward
  double cp_backward_buffers_bytes = 0;    // CP attention buffers alive during one layer's backward
  double cp_buffers_bytes = 0;      // max of the two (they are never alive together)
  double reserved_bytes = 0;        // fixed runtime overhead
  double total_bytes = 0;           // sum of the above byte fields (cp_buffers counted once)
  double capacity_bytes = 0;        // cluster.gpu.memory_bytes
  bool fits = false;                // total_bytes <= capacity_bytes
  std::string comm_type;            // cp_comm_type of the layer used for the buffers
  int pipeline_stage = 0;           // the pipeline stage this estimate is for (the one that needs the most)
  int stage_layers = 0;             // transformer layers held by that stage
};

// Parameters of the whole model (embeddings included), GQA-aware. Needs ffn_hidden_size > 0
// (otherwise 4 x hidden_size is assumed).
double model_parameter_count(const Scenario& s, const MemoryOptions& o = {});

// The recomputation a scenario asks for (model.recompute_granularity), or the override.
Recompute recompute_of(const Scenario& s, const MemoryOptions& o = {});

// Estimate for the busiest GPU: every pipeline stage with its own layers (an uneven split gives the
// stages different counts), micro-batches in flight, the input embedding on the first stage and the
// output layer and logits on the last; the stage that needs the most is returned. Training keeps the
// activations of the micro-batches in flight (1F1B, interleaved); prefill (train.mode) keeps weights
// and the KV cache.
// Preconditions: the scenario validates (parallel sizes divide what they must); throws
// std::invalid_argument on zero sizes.
MemoryEstimate estimate_memory(const Scenario& s, const MemoryOptions& o = {});

// Parses "none" | "selective" | "full"; throws std::invalid_argument listing the valid names.
Recompute parse_recompute(const std::string& name);
const char* to_string(Recompute r);

}  // namespace hcpsim
