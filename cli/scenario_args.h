#pragma once
// Shared by every scenario command: the `FILE [k=v...]` positional arguments and the
// "load + validate + print diagnostics" step.
#include <functional>
#include <memory>
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

// Loads `file` with `overrides` through the application layer (engine/app/scenario_input.h) and
// prints every diagnostic to stderr in the FILE:LINE:COL format. Returns the scenario when usable
// (warnings allowed); otherwise nullopt with exit_code = 1 (invalid input) or 2 (malformed override).
// `backend`: the command's --backend, which replaces simulation.backend ("" = the scenario's).
// `check_backend`: also reject a simulation.backend this build does not have (validate, simulate).
std::optional<Scenario> load_for_command(const std::string& file, const std::vector<std::string>& overrides,
                                         int& exit_code, const std::string& backend = "",
                                         bool check_backend = false);

// Sets the command's callback: loads args.file with args.overrides (load_for_command), then runs
// `body` on the scenario; the exit code is the loader's on failure, else body's.
void run_with_scenario(CLI::App& cmd, const std::shared_ptr<ScenarioArgs>& args, int& exit_code,
                       std::function<int(const Scenario&)> body, bool check_backend = false);

// For a --backend option: true when the registry has `name`; otherwise prints
// "hcpsim COMMAND: error: --backend: <the registry's message>" and returns false.
bool check_backend_option(const std::string& command, const std::string& name);

}  // namespace hcpsim::cli
