#pragma once
// Shared by every scenario command: the `FILE [k=v...]` positional arguments and the
// "load + validate + print diagnostics" step.
#include <optional>
#include <string>
#include <vector>

#include "engine/scenario/scenario.h"

namespace CLI {
class App;
}

namespace hcpsim::cli {

struct ScenarioArgs {
  std::string file;                      // scenario YAML
  std::vector<std::string> overrides;    // "key.path=value"
};

// Adds the positional FILE and k=v... arguments to a subcommand (FILE required).
void add_scenario_args(CLI::App& cmd, ScenarioArgs& args);

// Loads `file` with `overrides`, validates it and prints every diagnostic to stderr in the
// FILE:LINE:COL format. Returns the scenario when usable (warnings allowed); otherwise nullopt with
// exit_code = 1 (invalid input) or 2 (malformed override argument).
std::optional<Scenario> load_for_command(const std::string& file, const std::vector<std::string>& overrides,
                                         int& exit_code);

}  // namespace hcpsim::cli
