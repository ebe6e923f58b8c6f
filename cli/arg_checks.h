#pragma once
// Checks of command-line values shared by the subcommands, with readable ranges (a bad value is a
// usage error, exit 2).
#include <CLI/CLI.hpp>

#include <string>

namespace hcpsim::cli {

// The most GPUs any command accepts (the scenario limit, docs/scenario.md "Valid ranges").
inline constexpr int kMaxGpus = 262144;

// CLI11 validator: the value is not empty (e.g. `--backend ''`).
CLI::Validator non_empty(const std::string& what);

// CLI11 validator: a whole number in [lo, hi], with the range in the message.
CLI::Validator int_range(long long lo, long long hi);

}  // namespace hcpsim::cli
