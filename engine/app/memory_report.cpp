#include "engine/app/memory_report.h"

namespace hcpsim {

MemoryReport to_memory_report(const MemoryEstimate& m) {
  MemoryReport r;
  r.peak_bytes_per_gpu = m.total_bytes;
  r.capacity_bytes_per_gpu = m.capacity_bytes;
  r.breakdown_bytes = {{"weights", m.weights_bytes},
                       {"gradients", m.gradients_bytes},
                       {"optimizer_states", m.optimizer_bytes},
                       {"activations", m.activations_bytes},
                       {"logits", m.logits_bytes},
                       {"cp_buffers", m.cp_buffers_bytes},
                       {"reserved", m.reserved_bytes}};
  if (m.kv_cache_bytes > 0) r.breakdown_bytes.emplace_back("kv_cache", m.kv_cache_bytes);
  return r;
}

}  // namespace hcpsim
