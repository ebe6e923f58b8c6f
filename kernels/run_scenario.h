#pragma once
// The single-GPU runner behind `hcpsim run --emulate-ranks`: the timing graph the application layer
// built (engine/app/measure.h) with every rank emulated on GPU 0 (emulated_run.h). The multi-process
// run (one MPI process per GPU and rank) is distributed_run.h, linked only into hcpsim-mpi. Loading,
// reporting and writing the trace are the caller's (cli/cmd_run.cpp).
#include <iosfwd>

#include "engine/scenario/scenario.h"
#include "engine/trace/trace.h"
#include "kernels/emulated_run.h"

namespace hcpsim::kernels {

struct GpuRunOptions {
  double timeout_s = 120;       // multi-process: per pass over the graph
  EmulateOptions emulate;
};

// Emulates every rank of `g` on GPU 0. Throws std::runtime_error with the whole message when there
// is no GPU or when the run fails. `log` receives device descriptions and progress.
Trace emulate_on_gpu(const TaskGraph& g, const EmulateOptions& options, std::ostream& log);

}  // namespace hcpsim::kernels
