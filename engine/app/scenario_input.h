#pragma once
// The first two steps of every front end: a scenario file plus `key.path=value` overrides, loaded and
// checked (docs/scenario.md "Rules", plus a `simulation.backend` this build has).
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/core/diagnostics.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::app {

struct ScenarioInput {
  std::string file;                      // scenario YAML
  std::vector<std::string> overrides;    // "key.path=value", applied in order
  std::string backend;                   // a command's --backend: replaces simulation.backend ("" = keep)
  bool check_backend = true;             // check_backend_name (off for commands that run no backend)
};

// An override argument that is not `key.path=value` (a usage error, exit status 2 in the CLI).
class OverrideSyntaxError : public std::invalid_argument {
 public:
  OverrideSyntaxError(std::size_t index, const std::string& text);
  std::size_t index() const { return index_; }   // 1-based

 private:
  std::size_t index_;
};

struct LoadedScenario {
  Scenario scenario;
  Diagnostics diagnostics;   // loading warnings, validate(), the backend check
  bool usable() const { return !diagnostics.has_errors(); }
};

// Loads and checks. Throws OverrideSyntaxError for a malformed override and ScenarioError when the
// file cannot be read or does not match the schema; rule violations are returned in `diagnostics`.
LoadedScenario load_scenario(const ScenarioInput& input);

// Errors for a `simulation.backend` written in the file or an override that is not in
// backend_registry(), naming the valid ones (the default is not checked here).
Diagnostics check_backend_name(const Scenario& s);

}  // namespace hcpsim::app
