#pragma once
// Reader of Nsight Systems profiles exported to SQLite (`nsys export --type sqlite`). Reads, with
// SQLite's row-by-row queries (bounded memory):
//   CUPTI_ACTIVITY_KIND_KERNEL (start, end in ns, deviceId, streamId, correlationId, demangledName or
//   shortName -> StringIds.value, globalPid), CUPTI_ACTIVITY_KIND_MEMCPY / _MEMSET when present,
//   CUPTI_ACTIVITY_KIND_RUNTIME (start, correlationId, globalTid) for launch times, and NVTX_EVENTS
//   (start, end, text or textId, globalTid) for step / pass ranges.
// One rank per process (globalPid); ranks are numbered in the order of their GPU's deviceId, from the
// rank the file name (or FILE@N) states, or from 0 when the file holds several processes.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/measured/kernel_rules.h"
#include "engine/measured/measured_trace.h"

namespace hcpsim {

// True when the file starts with SQLite's header ("SQLite format 3").
bool is_sqlite_file(const std::string& path);

// Throws std::runtime_error naming the file: not SQLite, no kernel table (not an nsys export, or one
// made without CUDA tracing), a missing column, or one process and no rank known.
std::vector<MeasuredRank> read_nsys_sqlite(const std::string& path, int rank_hint, const KernelClassifier& classifier,
                                           NameTable& names, std::vector<std::int8_t>& kind_cache);

}  // namespace hcpsim
