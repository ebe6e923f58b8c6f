#pragma once
// The memory section of a Report (engine/report/report.h) from the memory model.
#include "engine/memory/memory_model.h"
#include "engine/report/report.h"

namespace hcpsim {

// Peak = total estimate, capacity, and one breakdown item per component (bytes).
MemoryReport to_memory_report(const MemoryEstimate& m);

}  // namespace hcpsim
