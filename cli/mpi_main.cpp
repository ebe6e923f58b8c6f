// hcpsim-mpi: the `run` command alone, linked with MPI (and with NCCL/CUDA when built) but not
// with SimGrid. `mpirun -np N hcpsim run ...` reaches it through hcpsim (run_worker.h); it can
// also be started directly: `mpirun -np N hcpsim-mpi run FILE --device cpu`.
#include <CLI/CLI.hpp>
#include <string>

#include "cli/commands.h"
#include "cli/cli_main.h"

int main(int argc, char** argv) {
  using namespace hcpsim::cli;
  CLI::App app{"hcpsim-mpi: the multi-process runner of hcpsim (one MPI process per rank)"};
  CliContext ctx = start_program(app, "hcpsim-mpi", argc, argv);
  add_run_command(app, ctx);
  return parse_and_run(app, ctx, "hcpsim-mpi", argc, argv);
}
