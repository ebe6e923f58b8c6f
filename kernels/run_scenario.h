#pragma once
// `hcpsim run` behind the command line: load + validate the scenario, build its task graph, check
// for a GPU, run it (single-GPU emulation of all ranks), write the measured trace.
#include <iosfwd>
#include <string>
#include <vector>

#include "kernels/emulated_run.h"

namespace hcpsim::kernels {

struct RunRequest {
  std::string file;
  std::vector<std::string> overrides;   // key.path=value
  std::string trace_path;               // "" = no trace
  bool check = false;                   // compare outputs with the reference (not implemented yet)
  bool emulate_ranks = false;           // false: one MPI process per GPU (distributed_run.h)
  double timeout_s = 120;               // multi-process: per pass over the graph
  EmulateOptions emulate;
};

// Returns the process exit code (0 ok, 1 invalid input, no GPU, or failed run); messages go to
// `out` (results) and `err` (errors, naming the task and rank where one is at fault).
int run_scenario(const RunRequest& r, std::ostream& out, std::ostream& err);

}  // namespace hcpsim::kernels
