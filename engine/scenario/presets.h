#pragma once
// Internal to the loader: hardware preset files under scenarios/hardware/ (whole clusters) and
// scenarios/hardware/gpus/ (GPUs). Each file holds the same keys as `cluster:` (or `cluster.gpu:`).
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

namespace hcpsim::detail {

enum class PresetKind { Cluster, Gpu };

// Folder of presets of a kind inside the hardware folder.
std::string preset_folder(const std::string& hardware_dir, PresetKind kind);
// Names (file stems) of the presets of a kind, sorted; empty when the folder is missing.
std::vector<std::string> list_presets(const std::string& hardware_dir, PresetKind kind);

struct PresetFile {
  std::string path;      // file it came from
  YAML::Node root;       // its mapping
};

// Loads preset `name`; nullopt with `error` set when it does not exist or does not parse.
std::optional<PresetFile> load_preset(const std::string& hardware_dir, PresetKind kind,
                                      const std::string& name, std::string& error);

}  // namespace hcpsim::detail
