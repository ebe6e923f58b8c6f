#pragma once
// hcpsim-mpi: the multi-process runner executable (one MPI process per rank, CPU or GPU). It links
// MPI and never SimGrid: SimGrid's SMPI library defines the MPI functions too, so one executable
// cannot hold both. `hcpsim run` hands the multi-process cases to it.
#include "cli/commands.h"

namespace hcpsim::cli {

// Path of hcpsim-mpi: beside this executable (/proc/self/exe), else beside argv[0].
std::string run_worker_path(const CliContext& ctx);

// Replaces this process with hcpsim-mpi, same arguments and environment (an MPI launcher's
// variables included). Returns only on failure, with the exit code after printing why.
int exec_run_worker(const CliContext& ctx);

}  // namespace hcpsim::cli
