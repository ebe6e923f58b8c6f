#pragma once
// The GPU runner behind `hcpsim run`: a loaded, validated scenario's task graph executed on GPUs,
// either every rank emulated on GPU 0 (emulated_run.h) or one MPI process per GPU and rank
// (distributed_run.h). Loading, printing and writing the trace are the caller's (cli/cmd_run.cpp).
#include <iosfwd>

#include "engine/scenario/scenario.h"
#include "engine/trace/trace.h"
#include "kernels/emulated_run.h"

namespace hcpsim::kernels {

struct GpuRunOptions {
  bool emulate_ranks = false;   // false: one MPI process per GPU (distributed_run.h)
  double timeout_s = 120;       // multi-process: per pass over the graph
  EmulateOptions emulate;
};

struct GpuRunResult {
  Trace trace;                  // the measured trace (empty on MPI ranks other than 0)
  bool reporting_rank = true;   // false on MPI ranks other than 0: they print and write nothing
};

// Throws std::runtime_error with the whole message when there is no GPU, when a multi-rank scenario
// was not started by an MPI launcher, or when the run fails (the other MPI ranks are aborted first).
// `log` receives device descriptions and progress.
GpuRunResult run_on_gpus(const Scenario& s, const GpuRunOptions& options, std::ostream& log);

// Ends MPI after a distributed run (no-op otherwise).
void finish_gpu_run();

}  // namespace hcpsim::kernels
