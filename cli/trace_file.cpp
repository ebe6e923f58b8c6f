#include "cli/trace_file.h"

#include <fstream>
#include <iostream>

#include "cli/arg_checks.h"

namespace hcpsim::cli {

bool write_trace_file(const Trace& t, const std::string& path, const std::string& command) {
  std::ofstream out(path);
  if (!out) {
    std::cerr << "hcpsim " << command << ": error: --trace: cannot write " << path << '\n';
    return false;
  }
  write_chrome_trace(t, out);
  // Flush and close before saying success: a full disk (or /dev/full) fails only here.
  return finish_output_file(out, path, "hcpsim " + command + ": --trace");
}

}  // namespace hcpsim::cli
