#include "cli/scenario_args.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/verbosity.h"
#include "engine/app/backend_catalog.h"
#include "engine/app/scenario_input.h"
#include "engine/core/diagnostics.h"
#include "engine/scenario/loader.h"

namespace hcpsim::cli {

void add_scenario_args(CLI::App& cmd, ScenarioArgs& args) {
  cmd.add_option("FILE", args.file, "scenario YAML file (see docs/scenario.md)")->required();
  cmd.add_option("overrides", args.overrides,
                 "field overrides key.path=value, value in YAML syntax, e.g. model.context_parallel_size=4 "
                 "\"model.hierarchical_context_parallel_sizes=[2,2]\"");
}

std::optional<Scenario> load_for_command(const std::string& file, const std::vector<std::string>& overrides,
                                         int& exit_code, const std::string& backend, bool check_backend) {
  try {
    app::LoadedScenario loaded = app::load_scenario(app::ScenarioInput{file, overrides, backend, check_backend});
    Diagnostics shown;
    for (const Diagnostic& d : loaded.diagnostics.items())
      if (d.severity == Severity::Error || !quiet()) shown.add(d);
    std::cerr << format_diagnostics(shown, file);
    if (!loaded.usable()) {
      exit_code = 1;
      return std::nullopt;
    }
    if (verbose()) {
      std::cerr << file << ": " << loaded.scenario.display_name() << "\n  configuration: " << loaded.scenario.configuration()
                << '\n';
      for (const auto& o : loaded.scenario.overrides) std::cerr << "  override: " << o << '\n';
      std::cerr << "  presets: " << default_hardware_dir() << '\n';
    }
    return std::move(loaded.scenario);
  } catch (const app::OverrideSyntaxError& e) {
    std::cerr << "hcpsim: error: " << e.what() << "\n  hint: e.g. model.context_parallel_size=4\n";
    exit_code = 2;
  } catch (const ScenarioError& e) {
    std::cerr << format_diagnostics(e.diagnostics(), e.file());
    exit_code = 1;
  } catch (const std::exception& e) {
    std::cerr << file << ": error: " << e.what() << '\n';
    exit_code = 1;
  }
  return std::nullopt;
}

void run_with_scenario(CLI::App& cmd, const std::shared_ptr<ScenarioArgs>& args, int& exit_code,
                       std::function<int(const Scenario&)> body, bool check_backend) {
  cmd.callback([args, &exit_code, body = std::move(body), check_backend]() {
    int code = 0;
    const auto s = load_for_command(args->file, args->overrides, code, "", check_backend);
    exit_code = s ? body(*s) : code;
  });
}

bool check_backend_option(const std::string& command, const std::string& name) {
  const BackendRegistry& r = app::backend_registry();
  if (r.has(name)) return true;
  std::cerr << "hcpsim " << command << ": error: --backend: " << r.unknown_name_message(name) << '\n';
  return false;
}

}  // namespace hcpsim::cli
