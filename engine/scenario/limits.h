#pragma once
// Bounds on scenario input that keep every later computation finite, in range and quick: how large
// a scenario file may be, how long its texts and lists, how many diagnostics one load reports.
// Per-field value ranges are in field_ranges.h; docs/scenario.md "Valid ranges" lists both.
#include <cstddef>
#include <cstdint>

namespace hcpsim::limits {

inline constexpr std::uintmax_t kMaxScenarioFileBytes = 4u << 20;   // 4 MiB
inline constexpr std::size_t kMaxNameChars = 128;                   // name, GPU name, backend
inline constexpr std::size_t kMaxTextChars = 4096;                  // description, paths, dist.order
inline constexpr std::size_t kMaxLayerList = 4096;                  // cp_comm_type entries
inline constexpr std::size_t kMaxHierarchicalLevels = 8;            // hierarchical_context_parallel_sizes
inline constexpr std::size_t kMaxFaults = 1024;                     // cluster.faults entries
inline constexpr std::size_t kMaxErrors = 100;                      // errors kept per load; the rest are counted
inline constexpr std::int64_t kMaxWorldSize = 262144;               // GPUs

}  // namespace hcpsim::limits
