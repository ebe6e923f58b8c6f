#include "engine/scenario/overrides.h"

#include <sstream>

#include "engine/scenario/schema.h"
#include "engine/core/text_split.h"

namespace hcpsim::detail {

bool split_override(const std::string& text, std::string& path, std::string& value) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  path = text.substr(0, eq);
  value = text.substr(eq + 1);
  return true;
}

namespace {

std::vector<std::string> split_dots(const std::string& path) { return split_at(path, '.'); }

std::vector<std::string> settable_paths() {
  std::vector<std::string> out;
  for (const auto& p : schema::all_paths())
    if (p.find("[]") == std::string::npos) out.push_back(p);
  return out;
}

}  // namespace

std::vector<OverrideSource> apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides,
                                            Diagnostics& diags) {
  std::vector<OverrideSource> applied;
  for (std::size_t i = 0; i < overrides.size(); ++i) {
    const std::string& text = overrides[i];
    const std::string tag = "<override " + std::to_string(i + 1) + ": '" + clip(text) + "'> ";
    std::string path, value;
    if (!split_override(text, path, value)) {
      diags.error("", tag + "expected key.path=value", 0, 0,
                  {"e.g. model.context_parallel_size=4 or \"model.hierarchical_context_parallel_sizes=[2,2]\""});
      continue;
    }
    if (const std::string what = schema::unmodelled_bridge_field(path); !what.empty()) {
      diags.warning(path, tag + "Megatron-Bridge field accepted but not modelled by hcpsim: " + what + " is ignored");
      continue;
    }
    if (!schema::is_known_path(path) || path.find("[]") != std::string::npos) {
      diags.error(path, tag + "unknown field '" + clip(path) + "'", 0, 0,
                  {schema::did_you_mean(path, settable_paths())});
      continue;
    }
    YAML::Node v;
    try {
      v = YAML::Load(value);
    } catch (const YAML::Exception& e) {
      diags.error(path, tag + "value '" + clip(value) + "' is not valid YAML: " + e.msg);
      continue;
    }
    if (value.find_first_not_of(" \t") == std::string::npos) {
      diags.error(path, tag + "no value after '='", 0, 0,
                  {"e.g. " + path + "=<value>; write " + path + "=null to remove an optional field"});
      continue;
    }
    const auto segs = split_dots(path);
    YAML::Node cur = root;
    bool ok = true;
    for (std::size_t k = 0; k + 1 < segs.size(); ++k) {
      YAML::Node child = cur[segs[k]];
      if (!child.IsDefined() || child.IsNull()) {
        child = YAML::Node(YAML::NodeType::Map);
      } else if (child.IsScalar() && segs[k] == "gpu") {
        // cluster.gpu: h100-sxm + cluster.gpu.memory=... -> {name: h100-sxm, memory: ...}
        YAML::Node m(YAML::NodeType::Map);
        m["name"] = child.Scalar();
        child = m;
      } else if (!child.IsMap()) {
        std::string parent;
        for (std::size_t j = 0; j <= k; ++j) parent += (j ? "." : "") + segs[j];
        diags.error(path, tag + "cannot set '" + path + "': '" + parent + "' is " + node_kind(child) +
                              ", not a mapping");
        ok = false;
        break;
      }
      cur.reset(cur[segs[k]]);
    }
    if (!ok) continue;
    cur[segs.back()] = v;
    applied.push_back({path, text});
  }
  return applied;
}

}  // namespace hcpsim::detail
