#pragma once
// What the two programs (hcpsim and hcpsim-mpi) share around their commands: the -v / -q flags, and
// parsing + running with one mapping of failures to exit codes (0 ok, 1 error, 2 usage, 3 internal
// error) and a check that standard output was really written.
#include <CLI/CLI.hpp>
#include <string>

#include "cli/commands.h"

namespace hcpsim::cli {

// -v/--verbose and -q/--quiet, before or after the command; the verbosity is set once parsing ends.
void add_verbosity_flags(CLI::App& app);

// Sets up `app` as the program `program` ("hcpsim"): --version, one command required, the -v / -q
// flags; returns the context its commands share (the whole command line).
CliContext start_program(CLI::App& app, const std::string& program, int argc, char** argv);

// Parses argv (running the chosen command's callback) and returns the process's exit code.
// `program` prefixes every message ("hcpsim: error: ...").
int parse_and_run(CLI::App& app, const CliContext& ctx, const std::string& program, int argc, char** argv);

}  // namespace hcpsim::cli
