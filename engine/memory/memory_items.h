#pragma once
// The items of a GPU's memory estimate in one list, each under its name: the report's breakdown and
// the planner's "largest item" of an out-of-memory layout read the same list.
#include <vector>

#include "engine/memory/memory_model.h"

namespace hcpsim {

struct MemoryItem {
  const char* name;      // "weights", "optimizer_states", ... (as in the report's breakdown)
  double bytes;
  bool fixed_overhead;   // the runtime's reserve: no layout choice changes it
};

// weights, gradients, optimizer_states, activations, logits, cp_buffers, reserved, then kv_cache
// when the estimate holds one (prefill).
inline std::vector<MemoryItem> memory_items(const MemoryEstimate& m) {
  std::vector<MemoryItem> items = {{"weights", m.weights_bytes, false},
                                   {"gradients", m.gradients_bytes, false},
                                   {"optimizer_states", m.optimizer_bytes, false},
                                   {"activations", m.activations_bytes, false},
                                   {"logits", m.logits_bytes, false},
                                   {"cp_buffers", m.cp_buffers_bytes, false},
                                   {"reserved", m.reserved_bytes, true}};
  if (m.kv_cache_bytes > 0) items.push_back({"kv_cache", m.kv_cache_bytes, false});
  return items;
}

}  // namespace hcpsim
