#pragma once
// Loading scenarios: YAML file or string + `key.path=value` overrides -> Scenario.
// Presets from scenarios/hardware/ are applied first; explicit fields override them.
// Throws ScenarioError (with every diagnostic found) when the input cannot be used;
// rule checks that need the whole scenario live in validate.h.
#include <string>
#include <vector>

#include "engine/core/diagnostics.h"
#include "engine/scenario/scenario.h"

namespace YAML {
class Node;
}

namespace hcpsim {

struct LoadOptions {
  std::vector<std::string> overrides;   // "model.context_parallel_size=4", "a.b=[2,2]"
  std::string hardware_dir;             // presets folder; "" = search the default locations
};

// Loads a file. Warnings found while loading are appended to `warnings` when non-null.
Scenario load_scenario_file(const std::string& path, const LoadOptions& options = {},
                            Diagnostics* warnings = nullptr);
// Loads YAML text; `name_for_messages` is used as FILE in diagnostics.
Scenario load_scenario_string(const std::string& yaml, const LoadOptions& options = {},
                              const std::string& name_for_messages = "<string>",
                              Diagnostics* warnings = nullptr);
// Loads a scenario mapping that is part of a larger YAML document (an accuracy case's inline
// scenario, or one assembled from a case's fields). Diagnostics carry the nodes' own marks, so they
// point into `file`; relative paths resolve against `base_dir`. The overrides edit `root` in place
// (YAML::Node is a handle): pass a tree that may be changed.
Scenario load_scenario_node(YAML::Node root, const LoadOptions& options, const std::string& file,
                            const std::string& base_dir, Diagnostics* warnings = nullptr);

// Folder that holds hardware presets: HCPSIM_HARDWARE_DIR, else share/hcpsim/hardware of the
// executable's install prefix, else scenarios/hardware above its build folder, else the source tree.
std::string default_hardware_dir();

}  // namespace hcpsim
