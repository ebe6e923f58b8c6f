#include "engine/planning/sweep_spec.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "engine/schedule/schedule_descriptor.h"

namespace hcpsim::planning {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// Splits on commas that are not inside [...].
std::vector<std::string> split_top_level(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(trim(cur));
  return out;
}

std::string where(const std::string& file, const YAML::Node& n) {
  return file + ":" + std::to_string(n.Mark().line + 1);
}

// A YAML value as override text: scalars as written, sequences as "[a,b]", null as "null" (a field
// left unset, e.g. hyperparallel.ulysses_degree: null for pure Ulysses).
std::string value_text(const YAML::Node& n, const std::string& file, const std::string& field) {
  if (n.IsNull()) return "null";
  if (n.IsScalar()) return n.Scalar();
  if (n.IsSequence()) {
    std::string s = "[";
    for (std::size_t i = 0; i < n.size(); ++i) {
      if (i) s += ",";
      s += value_text(n[i], file, field);
    }
    return s + "]";
  }
  throw std::runtime_error(where(file, n) + ": " + field + ": expected a value or a list of values");
}

constexpr const char* kHyperparallel = "hyperparallel";   // the `hyperparallel:` section's modes

// "p2p, all_gather, a2a, a2a+p2p, dfa, hyperparallel"
std::string layout_names() {
  std::string out;
  for (const schedule::ScheduleDescriptor& d : schedule::schedules()) out += std::string(d.name) + ", ";
  return out + kHyperparallel;
}

// HyperParallel's modes for one cp > 1 (the base scenario must not carry a hyperparallel: section of
// its own with other Megatron comm types in the same sweep: an override cannot remove a section).
void add_hyperparallel_layouts(AxisGroup& g, int cp) {
  const std::string cp_s = std::to_string(cp);
  auto add = [&](const std::string& label, const std::string& u, bool lb) {
    g.values.push_back({{cp_s, label},
                        {"model.context_parallel_size=" + cp_s, "hyperparallel.ulysses_degree=" + u,
                         std::string("hyperparallel.load_balance=") + (lb ? "true" : "false"),
                         "model.hierarchical_context_parallel_sizes=[]"}});
  };
  add("hp ulysses", "null", false);
  add("hp colossal", "1", false);
  add("hp colossal lb", "1", true);
  for (int u = 2; u < cp; ++u)
    if (cp % u == 0) add("hp hybrid u=" + std::to_string(u), std::to_string(u), false);
}

}  // namespace

std::string SweepPoint::key(const std::vector<std::string>& columns) const {
  std::string k;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (i) k += ";";
    k += (i < columns.size() ? columns[i] : "?") + "=" + labels[i];
  }
  return k;
}

AxisGroup parse_vary(const std::string& arg) {
  const auto eq = arg.find('=');
  if (eq == std::string::npos || eq == 0)
    throw std::invalid_argument("--vary '" + arg + "': expected KEY=V1,V2,... (e.g. model.context_parallel_size=2,4,8)");
  const std::string key = trim(arg.substr(0, eq));
  AxisGroup g;
  g.columns = {key};
  for (const std::string& v : split_top_level(arg.substr(eq + 1))) {
    if (v.empty()) throw std::invalid_argument("--vary '" + arg + "': empty value in the list");
    g.values.push_back({{v}, {key + "=" + v}});
  }
  return g;
}

AxisGroup make_cp_layouts(const std::vector<int>& cps, const std::vector<std::string>& comm_types) {
  AxisGroup g;
  g.columns = {"cp", "layout"};
  for (const std::string& t : comm_types)
    if (t != kHyperparallel && !schedule::find_schedule(t))
      throw std::invalid_argument("cp_layouts: unknown comm type '" + t + "' (valid: " + layout_names() + ")");
  for (int cp : cps) {
    if (cp < 1) throw std::invalid_argument("cp_layouts: cp must be >= 1, got " + std::to_string(cp));
    const std::string cp_s = std::to_string(cp);
    const std::string cp_kv = "model.context_parallel_size=" + cp_s;
    for (const std::string& t : comm_types) {
      if (t == kHyperparallel) {
        if (cp > 1) add_hyperparallel_layouts(g, cp);
        continue;
      }
      if (!schedule::find_schedule(t)->hierarchical()) {
        g.values.push_back({{cp_s, t},
                            {cp_kv, "model.cp_comm_type=" + t,
                             "model.hierarchical_context_parallel_sizes=[]"}});
        continue;
      }
      for (int a = 2; a < cp; ++a) {
        if (cp % a) continue;
        const std::string split = "[" + std::to_string(a) + "," + std::to_string(cp / a) + "]";
        g.values.push_back({{cp_s, "hcp A=" + std::to_string(a)},
                            {cp_kv, "model.cp_comm_type=" + t,
                             "model.hierarchical_context_parallel_sizes=" + split}});
      }
    }
  }
  return g;
}

SweepSpec load_sweep_file(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw std::runtime_error(path + ": cannot open sweep file");
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!root.IsMap()) throw std::runtime_error(path + ": a sweep file is a mapping with `base:` and `vary:`");
  SweepSpec spec;
  for (const auto& kv : root) {
    const std::string field = kv.first.Scalar();
    const YAML::Node& n = kv.second;
    if (field == "base") {
      const std::filesystem::path base = n.Scalar();
      spec.base_path = base.is_absolute()
                           ? base.string()
                           : (std::filesystem::path(path).parent_path() / base).lexically_normal().string();
    } else if (field == "metric") {
      spec.metric = n.Scalar();
    } else if (field == "backend") {
      spec.backend = n.Scalar();
    } else if (field == "description" || field == "name") {
      // free text
    } else if (field == "overrides") {
      if (n.IsMap()) {
        for (const auto& o : n) spec.overrides.push_back(o.first.Scalar() + "=" + value_text(o.second, path, "overrides"));
      } else if (n.IsSequence()) {
        for (const auto& o : n) spec.overrides.push_back(o.Scalar());
      } else {
        throw std::runtime_error(where(path, n) + ": overrides: expected a mapping key: value");
      }
    } else if (field == "vary") {
      if (!n.IsMap()) throw std::runtime_error(where(path, n) + ": vary: expected a mapping key: [values]");
      for (const auto& axis : n) {
        const std::string key = axis.first.Scalar();
        if (!axis.second.IsSequence() || axis.second.size() == 0)
          throw std::runtime_error(where(path, axis.second) + ": vary." + key + ": expected a non-empty list");
        AxisGroup g;
        g.columns = {key};
        for (const auto& v : axis.second) {
          const std::string text = value_text(v, path, "vary." + key);
          g.values.push_back({{text}, {key + "=" + text}});
        }
        spec.groups.push_back(std::move(g));
      }
    } else if (field == "cp_layouts") {
      if (!n.IsMap() || !n["cp"] || !n["comm_types"])
        throw std::runtime_error(where(path, n) + ": cp_layouts: expected {cp: [..], comm_types: [..]}");
      std::vector<int> cps;
      std::vector<std::string> types;
      try {
        cps = n["cp"].as<std::vector<int>>();
        types = n["comm_types"].as<std::vector<std::string>>();
        spec.groups.push_back(make_cp_layouts(cps, types));
      } catch (const YAML::Exception&) {
        throw std::runtime_error(where(path, n) + ": cp_layouts: cp must be a list of integers, comm_types a list of names");
      } catch (const std::invalid_argument& e) {
        throw std::runtime_error(where(path, n) + ": " + e.what());
      }
    } else {
      throw std::runtime_error(where(path, kv.first) + ": unknown field '" + field +
                               "' (valid: base, description, overrides, vary, cp_layouts, metric, backend)");
    }
  }
  if (spec.base_path.empty()) throw std::runtime_error(path + ": base: missing (the scenario file to sweep)");
  return spec;
}

bool is_sweep_file(const std::string& path) {
  try {
    const YAML::Node root = YAML::LoadFile(path);
    return root.IsMap() && root["base"];
  } catch (const YAML::Exception&) {
    return false;
  }
}

std::vector<std::string> sweep_columns(const SweepSpec& spec) {
  std::vector<std::string> cols;
  for (const auto& g : spec.groups) cols.insert(cols.end(), g.columns.begin(), g.columns.end());
  return cols;
}

std::vector<SweepPoint> expand_points(const SweepSpec& spec,
                                      const std::vector<std::string>& extra_overrides) {
  std::vector<SweepPoint> points;
  std::vector<std::size_t> idx(spec.groups.size(), 0);
  for (const auto& g : spec.groups)
    if (g.values.empty()) return points;
  while (true) {
    SweepPoint p;
    p.index = points.size();
    p.overrides = spec.overrides;
    p.overrides.insert(p.overrides.end(), extra_overrides.begin(), extra_overrides.end());
    for (std::size_t gi = 0; gi < spec.groups.size(); ++gi) {
      const AxisValue& v = spec.groups[gi].values[idx[gi]];
      p.labels.insert(p.labels.end(), v.labels.begin(), v.labels.end());
      p.overrides.insert(p.overrides.end(), v.overrides.begin(), v.overrides.end());
    }
    points.push_back(std::move(p));
    // odometer: last group fastest
    std::size_t gi = spec.groups.size();
    while (gi > 0) {
      --gi;
      if (++idx[gi] < spec.groups[gi].values.size()) break;
      idx[gi] = 0;
      if (gi == 0) return points;
    }
    if (spec.groups.empty()) return points;
  }
}

}  // namespace hcpsim::planning
