#pragma once
// Test helper: a whole file's bytes (empty when it cannot be opened; tests check what they expect).
#include <fstream>
#include <sstream>
#include <string>

namespace hcpsim::test {

inline std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace hcpsim::test
