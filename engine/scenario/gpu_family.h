#pragma once
// The GPU generation of a preset name (cluster.gpu.name), where a model term depends on it.
#include <string>

namespace hcpsim {

// Blackwell: b100, b200, b300, gb200, gb300 (and names that start with them, e.g. "b200-sxm").
inline bool is_blackwell_gpu(const std::string& gpu) {
  for (const char* p : {"b100", "b200", "b300", "gb200", "gb300"})
    if (gpu.rfind(p, 0) == 0) return true;
  return false;
}

}  // namespace hcpsim
