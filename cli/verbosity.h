#pragma once
// -v / --verbose and -q / --quiet, accepted by every command (given before or after the command).
// Quiet: errors only (no warnings, progress or notes on stderr). Verbose: also the resolved
// configuration, the overrides and how long each step took.
namespace hcpsim::cli {

enum class Verbosity { Quiet = -1, Normal = 0, Verbose = 1 };

void set_verbosity(Verbosity v);
Verbosity verbosity();
inline bool quiet() { return verbosity() == Verbosity::Quiet; }
inline bool verbose() { return verbosity() == Verbosity::Verbose; }

}  // namespace hcpsim::cli
