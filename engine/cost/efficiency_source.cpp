#include "engine/cost/efficiency_source.h"

#include <cstdio>

#include "engine/scenario/scenario.h"

namespace hcpsim {

const char* to_string(ValueOrigin o) {
  switch (o) {
    case ValueOrigin::Scenario: return "scenario";
    case ValueOrigin::Override: return "override";
    case ValueOrigin::Calibration: return "calibration";
    case ValueOrigin::PublishedTable: return "published table";
    case ValueOrigin::HardwarePreset: return "hardware preset";
    case ValueOrigin::Default: return "default";
  }
  return "default";
}

std::string describe(const EfficiencySource& e) {
  char value[32];
  std::snprintf(value, sizeof value, "%.4g", e.value);
  std::string out = e.quantity + " " + value + " from " + to_string(e.origin);
  if (!e.detail.empty()) out += " (" + e.detail + ")";
  return out;
}

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

FieldOrigin field_origin(const Scenario& s, const std::string& path) {
  if (auto it = s.locations.find(path); it != s.locations.end()) {
    const SourceLocation& at = it->second;
    const auto k = static_cast<std::size_t>(at.override_index);
    if (k > 0 && k <= s.overrides.size())
      return {ValueOrigin::Override, "override " + std::to_string(k) + " '" + s.overrides[k - 1] + "'"};
    std::string where = "line " + std::to_string(at.line);
    if (!s.source_path.empty()) where += " of " + s.source_path;
    return {ValueOrigin::Scenario, where};
  }
  // Presets set the GPU and the links (scenarios/hardware/), never the efficiencies.
  if (starts_with(path, "cluster.gpu.")) {
    if (s.locations.count("cluster.gpu") > 0 || s.locations.count("cluster.gpu.name") > 0)
      return {ValueOrigin::HardwarePreset, "GPU preset " + s.cluster.gpu.name};
    if (!s.cluster.preset.empty())
      return {ValueOrigin::HardwarePreset, "cluster preset " + s.cluster.preset + " (GPU " + s.cluster.gpu.name + ")"};
  }
  if ((starts_with(path, "cluster.intra_node.") || starts_with(path, "cluster.inter_node.")) && !s.cluster.preset.empty())
    return {ValueOrigin::HardwarePreset, "cluster preset " + s.cluster.preset};
  return {ValueOrigin::Default, ""};
}

}  // namespace hcpsim
