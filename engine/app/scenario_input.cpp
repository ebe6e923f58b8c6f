#include "engine/app/scenario_input.h"

#include "engine/app/backend_catalog.h"
#include "engine/scenario/loader.h"
#include "engine/validate/validate.h"

namespace hcpsim::app {

OverrideSyntaxError::OverrideSyntaxError(std::size_t index, const std::string& text)
    : std::invalid_argument("argument '" + text + "' (override " + std::to_string(index) +
                            ") is not of the form key.path=value"),
      index_(index) {}

Diagnostics check_backend_name(const Scenario& s) {
  Diagnostics d;
  const BackendRegistry& r = backend_registry();
  // Only a backend the user named: the default (simgrid) is checked when a command runs it, so a
  // build without SimGrid still validates scenarios that do not name a backend.
  if (r.has(s.simulation.backend) || s.locations.count("simulation.backend") == 0) return d;
  const SourceLocation loc = s.location_of("simulation.backend");
  d.error("simulation.backend", r.unknown_name_message(s.simulation.backend), loc.line, loc.column);
  return d;
}

LoadedScenario load_scenario(const ScenarioInput& input) {
  for (std::size_t i = 0; i < input.overrides.size(); ++i) {
    const auto eq = input.overrides[i].find('=');
    if (eq == std::string::npos || eq == 0) throw OverrideSyntaxError(i + 1, input.overrides[i]);
  }
  LoadOptions options;
  options.overrides = input.overrides;
  LoadedScenario out;
  out.scenario = load_scenario_file(input.file, options, &out.diagnostics);
  if (!input.backend.empty()) out.scenario.simulation.backend = input.backend;
  out.diagnostics.append(validate(out.scenario));
  if (input.check_backend) out.diagnostics.append(check_backend_name(out.scenario));
  return out;
}

}  // namespace hcpsim::app
