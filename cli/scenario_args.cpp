#include "cli/scenario_args.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "engine/core/diagnostics.h"
#include "engine/scenario/loader.h"
#include "engine/scenario/validate.h"

namespace hcpsim::cli {

void add_scenario_args(CLI::App& cmd, ScenarioArgs& args) {
  cmd.add_option("FILE", args.file, "scenario YAML file (see docs/scenario.md)")->required();
  cmd.add_option("overrides", args.overrides,
                 "field overrides key.path=value, value in YAML syntax, e.g. model.context_parallel_size=4 "
                 "\"model.hierarchical_context_parallel_sizes=[2,2]\"");
}

std::optional<Scenario> load_for_command(const std::string& file, const std::vector<std::string>& overrides,
                                         int& exit_code) {
  for (std::size_t i = 0; i < overrides.size(); ++i) {
    const auto eq = overrides[i].find('=');
    if (eq == std::string::npos || eq == 0) {
      std::cerr << "hcpsim: error: argument '" << overrides[i] << "' (override " << i + 1
                << ") is not of the form key.path=value\n"
                << "  hint: e.g. model.context_parallel_size=4\n";
      exit_code = 2;
      return std::nullopt;
    }
  }
  try {
    LoadOptions opt;
    opt.overrides = overrides;
    Diagnostics warnings;
    Scenario s = load_scenario_file(file, opt, &warnings);
    Diagnostics all = warnings;
    all.append(validate(s));
    std::cerr << format_diagnostics(all, file);
    if (all.has_errors()) {
      exit_code = 1;
      return std::nullopt;
    }
    return s;
  } catch (const ScenarioError& e) {
    std::cerr << format_diagnostics(e.diagnostics(), e.file());
    exit_code = 1;
  } catch (const std::exception& e) {
    std::cerr << file << ": error: " << e.what() << '\n';
    exit_code = 1;
  }
  return std::nullopt;
}

}  // namespace hcpsim::cli
