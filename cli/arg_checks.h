#pragma once
// Checks of command-line values shared by the subcommands, with readable ranges (a bad value is a
// usage error, exit 2), and the check that an output file was really written.
#include <CLI/CLI.hpp>

#include <fstream>
#include <string>

namespace hcpsim::cli {

// The most GPUs any command accepts (the scenario limit, docs/scenario.md "Valid ranges").
inline constexpr int kMaxGpus = 262144;

// CLI11 validator: the value is not empty (e.g. `--backend ''`).
CLI::Validator non_empty(const std::string& what);

// CLI11 validator: a whole number in [lo, hi], with the range in the message.
CLI::Validator int_range(long long lo, long long hi);

// Flushes and closes `out`; false (message with `path` on stderr, prefixed by `who`) when any write
// failed, e.g. on a full disk or /dev/full.
bool finish_output_file(std::ofstream& out, const std::string& path, const std::string& who);

}  // namespace hcpsim::cli
