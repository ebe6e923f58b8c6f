#pragma once
// Internal to the loader: converts a checked YAML tree into a Scenario, collecting every error.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>

#include "engine/scenario/scenario.h"
#include "engine/scenario/yaml_reader.h"

namespace hcpsim::detail {

struct ConvertInputs {
  std::string hardware_dir;   // presets folder
  std::string base_dir;       // folder that relative paths (calibration) are resolved against
};

// Fills `s` from the root mapping; errors go to the reader's diagnostics.
void convert_scenario(const YAML::Node& root, YamlReader& r, const ConvertInputs& in, Scenario& s);

// Reads the `cluster:` section (also used for cluster preset files, with allow_preset = false).
// `nics_set` becomes true when nics_per_node was given.
void convert_cluster(const YAML::Node& cluster, YamlReader& r, const ConvertInputs& in,
                     ClusterConfig& c, bool& nics_set, bool allow_preset);

// Reads the `hyperparallel:` section and `model.dsa` (convert_hyperparallel.cpp).
void convert_hyperparallel(const YAML::Node& h, YamlReader& r, Scenario& s);
void convert_dsa(const YAML::Node& d, YamlReader& r, Scenario& s);

// The cp_comm_type named `name` as model.cp_comm_type spells it (scenario.cpp holds the names table).
std::optional<CpCommType> comm_type_named(std::string_view name);
// The HyperParallel style named `name` as hyperparallel.style spells it, if any, and every name in
// HpStyle order (hyperparallel_config.cpp holds the names table).
std::optional<HpStyle> hp_style_named(std::string_view name);
std::vector<std::string> hp_style_names();

// Reads `cluster.gpu` (a preset name or a mapping) into `gpu`.
void convert_gpu(const YAML::Node& g, const std::string& path, YamlReader& r, const ConvertInputs& in,
                 GpuSpec& gpu);

}  // namespace hcpsim::detail
