#include "cli/trace_file.h"

#include <iostream>
#include <stdexcept>

#include "engine/trace/chrome_trace_writer.h"
#include "engine/trace/trace_output.h"

namespace hcpsim::cli {

bool write_trace_file(const Trace& t, const std::string& path, const std::string& command, const std::string& option) {
  try {
    const std::unique_ptr<TraceOutput> out = open_trace_output(path);
    write_chrome_trace(t, *out);
    // Flushed and closed before saying success: a full disk (or /dev/full) fails only here.
    out->close();
    return true;
  } catch (const std::runtime_error& e) {
    std::cerr << "hcpsim " << command << ": error: " << option << ": " << e.what() << '\n';
    return false;
  }
}

}  // namespace hcpsim::cli
