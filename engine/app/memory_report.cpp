#include "engine/app/memory_report.h"

#include "engine/memory/memory_items.h"

namespace hcpsim {

MemoryReport to_memory_report(const MemoryEstimate& m) {
  MemoryReport r;
  r.peak_bytes_per_gpu = m.total_bytes;
  r.capacity_bytes_per_gpu = m.capacity_bytes;
  for (const MemoryItem& item : memory_items(m)) r.breakdown_bytes.emplace_back(item.name, item.bytes);
  return r;
}

}  // namespace hcpsim
