#pragma once
// Test helper: the example scenarios shipped in scenarios/ (*.yaml), sorted by path. Needs the
// target's HCPSIM_SOURCE_DIR definition (the repository root).
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace hcpsim::test {

inline std::vector<std::string> example_scenario_files() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(HCPSIM_SOURCE_DIR) / "scenarios"))
    if (e.is_regular_file() && e.path().extension() == ".yaml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace hcpsim::test
