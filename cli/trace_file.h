#pragma once
// Writing a --trace FILE (Chrome trace / Perfetto JSON, gzip when the name ends in ".gz") of a trace
// held in memory (`hcpsim run`), with one error text.
#include <string>

#include "engine/trace/trace.h"

namespace hcpsim::cli {

// Writes `t` to `path`; on failure prints "hcpsim COMMAND: error: OPTION: PATH: cannot write: REASON"
// and returns false.
bool write_trace_file(const Trace& t, const std::string& path, const std::string& command,
                      const std::string& option = "--trace");

}  // namespace hcpsim::cli
