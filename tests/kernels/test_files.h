#pragma once
// Paths of the repository files the kernel tests read. In a bundle on a lent GPU machine the source
// tree is absent: bench/gpu/bundle.sh copies those files to BUNDLE/src/ (same relative paths) and
// check.sh points HCPSIM_TEST_SOURCE_DIR there.
#include <cstdlib>
#include <string>

namespace hcpsim::test {

inline std::string source_file(const std::string& relative) {
  const char* dir = std::getenv("HCPSIM_TEST_SOURCE_DIR");
  return std::string(dir && *dir ? dir : HCPSIM_SOURCE_DIR) + "/" + relative;
}

}  // namespace hcpsim::test
