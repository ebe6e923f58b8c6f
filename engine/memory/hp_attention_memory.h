#pragma once
// What HyperParallel's CP keeps in memory (docs/planning.md "CP attention buffers"). Its hooks run
// the collectives as autograd operations, so the attention kernel's saved inputs are the tensors
// AFTER the collectives: the K and V all-gathered over the Colossal group stay alive, per layer, from
// forward to backward — co times the local K/V of the rank's head block. This is what limits
// the Colossal and hybrid modes at long sequences.
#include "engine/scenario/scenario.h"

namespace hcpsim {

struct HpAttentionMemory {
  double saved_per_layer_bytes = 0;   // extra activations per layer: gathered K/V beyond the local shard,
                                      // plus the peer's Q half and its output under load_balance
  double forward_buffer_bytes = 0;    // transient in one layer's forward (all-to-all staging)
  double backward_buffer_bytes = 0;   // transient in one layer's backward (full-length dK/dV, staging)
};

// Zero when the scenario has no `hyperparallel:` section or cp = 1.
HpAttentionMemory hp_attention_memory(const Scenario& s);

}  // namespace hcpsim
