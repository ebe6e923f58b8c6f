#include "cli/cli_main.h"

#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>

#include "cli/verbosity.h"
#include "engine/core/internal_error.h"

namespace hcpsim::cli {

void add_verbosity_flags(CLI::App& app) {
  auto flags = std::make_shared<std::pair<bool, bool>>(false, false);   // verbose, quiet
  app.add_flag("-v,--verbose", flags->first, "also print the resolved configuration, the overrides and timings");
  app.add_flag("-q,--quiet", flags->second, "print errors only (no warnings, progress or notes)");
  app.fallthrough();   // -v / -q may also follow the command
  app.parse_complete_callback([flags] {
    set_verbosity(flags->second ? Verbosity::Quiet : flags->first ? Verbosity::Verbose : Verbosity::Normal);
  });
}

CliContext start_program(CLI::App& app, const std::string& program, int argc, char** argv) {
  app.set_version_flag("--version", program + " " + HCPSIM_VERSION);
  app.require_subcommand(1);
  add_verbosity_flags(app);
  CliContext ctx;
  ctx.argv0 = argv[0];
  ctx.argc = argc;
  ctx.argv = argv;
  return ctx;
}

int parse_and_run(CLI::App& app, const CliContext& ctx, const std::string& program, int argc, char** argv) {
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
    std::cerr << program << ": internal error: " << e.what()
              << "\n  this is a bug in hcpsim, not a problem of the input: please report it with the scenario "
                 "file and the command line\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << program << ": error: " << e.what() << '\n';
    return 1;
  }
  // A result that could not be written (full disk, closed pipe) is a failure, not a silent success.
  if (std::fflush(stdout) != 0 || !std::cout.flush()) {
    std::cerr << program << ": error: cannot write to standard output\n";
    return ctx.exit_code == 0 ? 1 : ctx.exit_code;
  }
  return ctx.exit_code;
}

}  // namespace hcpsim::cli
