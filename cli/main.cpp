// hcpsim command line: subcommands parse arguments and call the libraries.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "engine/core/internal_error.h"
#include "cli/verbosity.h"

int main(int argc, char** argv) {
  using namespace hcpsim::cli;
  CLI::App app{"hcpsim: simulate, run and explain context-parallel attention (p2p, a2a, all_gather, "
               "a2a+p2p) with Megatron-Core / Transformer Engine semantics"};
  app.set_version_flag("--version", std::string("hcpsim ") + HCPSIM_VERSION);
  app.require_subcommand(1);
  app.footer("Run 'hcpsim COMMAND --help' for a command's options and examples.");
  bool verbose_flag = false, quiet_flag = false;
  app.add_flag("-v,--verbose", verbose_flag, "also print the resolved configuration, the overrides and timings");
  app.add_flag("-q,--quiet", quiet_flag, "print errors only (no warnings, progress or notes)");
  app.fallthrough();   // -v / -q may also follow the command
  app.parse_complete_callback([&] {
    set_verbosity(quiet_flag ? Verbosity::Quiet : verbose_flag ? Verbosity::Verbose : Verbosity::Normal);
  });
  CliContext ctx;
  ctx.argv0 = argv[0];
  ctx.argc = argc;
  ctx.argv = argv;
  add_validate_command(app, ctx);
  add_layout_command(app, ctx);
  add_graph_command(app, ctx);
  add_verify_command(app, ctx);
  add_simulate_command(app, ctx);
  add_sweep_command(app, ctx);
  add_plan_command(app, ctx);
  add_run_command(app, ctx);
  add_calibrate_command(app, ctx);
  add_compare_command(app, ctx);
  add_accuracy_command(app, ctx);
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const auto* sub : app.get_subcommands({})) {
      known = known || sub->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << "hcpsim: error: unknown command '" << argv[1] << "'; valid commands: " << names
                << "\nRun 'hcpsim --help' for an overview.\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;   // usage error
  } catch (const hcpsim::InternalError& e) {
    std::cerr << "hcpsim: internal error: " << e.what()
              << "\n  this is a bug in hcpsim, not a problem of the input: please report it with the scenario "
                 "file and the command line\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "hcpsim: error: " << e.what() << '\n';
    return 1;
  }
  // A result that could not be written (full disk, closed pipe) is a failure, not a silent success.
  if (std::fflush(stdout) != 0 || !std::cout.flush()) {
    std::cerr << "hcpsim: error: cannot write to standard output\n";
    return ctx.exit_code == 0 ? 1 : ctx.exit_code;
  }
  return ctx.exit_code;
}
