#pragma once
// `hcpsim calibrate --from-trace MEASURED... FILE [k=v...]`: fits a calibration file from a profiled
// run of the scenario (engine/measured/trace_fit.h).
#include <string>
#include <vector>

namespace hcpsim::cli {

struct FromTraceRequest {
  std::vector<std::string> traces;   // profiler traces, folders, FILE@N
  std::string kernel_rules;          // extra classification rules, or empty
  std::string scenario;              // scenario file that was run
  std::vector<std::string> overrides;
  std::string out;                   // calibration YAML path; empty: print it
};

// Returns the exit code; messages go to std::cout / std::cerr.
int calibrate_from_trace(const FromTraceRequest& r);

}  // namespace hcpsim::cli
