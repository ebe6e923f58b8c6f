// hcpsim-mpi: the `run` command alone, linked with MPI (and with NCCL/CUDA when built) but not
// with SimGrid. `mpirun -np N hcpsim run ...` reaches it through hcpsim (run_worker.h); it can
// also be started directly: `mpirun -np N hcpsim-mpi run FILE --device cpu`.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "cli/verbosity.h"
#include "engine/core/internal_error.h"

int main(int argc, char** argv) {
  using namespace hcpsim::cli;
  CLI::App app{"hcpsim-mpi: the multi-process runner of hcpsim (one MPI process per rank)"};
  app.set_version_flag("--version", std::string("hcpsim-mpi ") + HCPSIM_VERSION);
  app.require_subcommand(1);
  bool verbose_flag = false, quiet_flag = false;
  app.add_flag("-v,--verbose", verbose_flag, "also print the resolved configuration, the overrides and timings");
  app.add_flag("-q,--quiet", quiet_flag, "print errors only (no warnings, progress or notes)");
  app.fallthrough();
  app.parse_complete_callback([&] {
    set_verbosity(quiet_flag ? Verbosity::Quiet : verbose_flag ? Verbosity::Verbose : Verbosity::Normal);
  });
  CliContext ctx;
  ctx.argv0 = argv[0];
  ctx.argc = argc;
  ctx.argv = argv;
  add_run_command(app, ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const hcpsim::InternalError& e) {
    std::cerr << "hcpsim-mpi: internal error: " << e.what() << '\n';
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "hcpsim-mpi: error: " << e.what() << '\n';
    return 1;
  }
  if (std::fflush(stdout) != 0 || !std::cout.flush()) {
    std::cerr << "hcpsim-mpi: error: cannot write to standard output\n";
    return ctx.exit_code == 0 ? 1 : ctx.exit_code;
  }
  return ctx.exit_code;
}
