#include "cli/trace_file.h"

#include <fstream>
#include <iostream>

namespace hcpsim::cli {

bool write_trace_file(const Trace& t, const std::string& path, const std::string& command) {
  std::ofstream out(path);
  if (out) write_chrome_trace(t, out);
  if (!out) {
    std::cerr << "hcpsim " << command << ": error: --trace: cannot write " << path << '\n';
    return false;
  }
  return true;
}

}  // namespace hcpsim::cli
