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
  app.set_version_flag("--version", std::string("hcpsim-mpi ") + HCPSIM_VERSION);
  app.require_subcommand(1);
  add_verbosity_flags(app);
  CliContext ctx;
  ctx.argv0 = argv[0];
  ctx.argc = argc;
  ctx.argv = argv;
  add_run_command(app, ctx);
  return parse_and_run(app, ctx, "hcpsim-mpi", argc, argv);
}
