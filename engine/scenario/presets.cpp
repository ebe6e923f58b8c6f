#include "engine/scenario/presets.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace hcpsim::detail {

namespace fs = std::filesystem;

std::string preset_folder(const std::string& hardware_dir, PresetKind kind) {
  return kind == PresetKind::Cluster ? hardware_dir : (fs::path(hardware_dir) / "gpus").string();
}

std::vector<std::string> list_presets(const std::string& hardware_dir, PresetKind kind) {
  std::vector<std::string> out;
  std::error_code ec;
  const fs::path dir = preset_folder(hardware_dir, kind);
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file(ec) && e.path().extension() == ".yaml") out.push_back(e.path().stem().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<PresetFile> load_preset(const std::string& hardware_dir, PresetKind kind,
                                      const std::string& name, std::string& error) {
  const auto names = list_presets(hardware_dir, kind);
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    error = "not found";
    return std::nullopt;
  }
  PresetFile f;
  f.path = (fs::path(preset_folder(hardware_dir, kind)) / (name + ".yaml")).string();
  try {
    f.root = YAML::LoadFile(f.path);
  } catch (const YAML::Exception& e) {
    error = "preset file " + f.path + " does not parse: " + e.what();
    return std::nullopt;
  }
  if (!f.root.IsMap()) {
    error = "preset file " + f.path + " is not a mapping";
    return std::nullopt;
  }
  return f;
}

}  // namespace hcpsim::detail
