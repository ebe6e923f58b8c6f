#pragma once
// Internal to the loader: `key.path=value` overrides applied to the YAML tree before conversion.
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "engine/core/diagnostics.h"
#include "engine/scenario/yaml_reader.h"

namespace hcpsim::detail {

// Splits "a.b=value" into path and value; false when there is no '=' or the path is empty.
bool split_override(const std::string& text, std::string& path, std::string& value);

// Applies every override to `root` (a mapping), in order; errors name the override by its 1-based
// index. Returns the overrides that were applied (for locating later diagnostics).
std::vector<OverrideSource> apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides,
                                            Diagnostics& diags);

}  // namespace hcpsim::detail
