#include "cli/sweep_emit.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/plan_output.h"
#include "engine/planning/plan_emit.h"
#include "engine/scenario/loader.h"

namespace hcpsim::cli {
namespace {

// The point a result row belongs to (rows carry the point's labels, also when read back by --resume).
const planning::SweepPoint* point_of(const planning::PointResult& r, const SweepRows& rows) {
  for (const planning::SweepPoint& p : rows.points)
    if (p.labels == r.labels) return &p;
  return nullptr;
}

// The point's scenario, when it loads.
std::optional<Scenario> scenario_of(const planning::SweepPoint& p, const std::string& base_path) {
  try {
    LoadOptions lo;
    lo.overrides = p.overrides;
    return load_scenario_file(base_path, lo);
  } catch (const ScenarioError&) {
    return std::nullopt;   // the row already says why (status invalid)
  }
}

std::string label_text(const planning::SweepPoint& p, const std::vector<std::string>& columns) {
  std::string s;
  for (std::size_t i = 0; i < p.labels.size() && i < columns.size(); ++i)
    s += (s.empty() ? "" : " ") + columns[i] + "=" + p.labels[i];
  return s;
}

}  // namespace

void write_sweep_json(std::ostream& os, const std::vector<planning::PointResult>& rs, const SweepRows& rows) {
  using namespace planning;
  nlohmann::json arr = nlohmann::json::array();
  for (const PointResult& r : rs) {
    nlohmann::json j = to_json(r, rows.columns);
    const SweepPoint* p = point_of(r, rows);
    if (const std::optional<Scenario> s = p ? scenario_of(*p, rows.base_path) : std::nullopt) {
      j["scenario_overrides"] = p->overrides;
      j["megatron_arguments"] = megatron_arguments(*s);
      j["bridge_overrides"] = bridge_overrides(p->overrides);
      j["warnings"] = emit_warnings(*s);   // what the Megatron-LM arguments or Bridge overrides cannot say
    }
    arr.push_back(std::move(j));
  }
  os << nlohmann::json{{"columns", rows.columns}, {"points", arr}}.dump(2) << '\n';
}

bool emit_sweep(const std::vector<planning::PointResult>& rs, const SweepRows& rows, const std::string& dir) {
  using namespace planning;
  if (!make_emit_dir(dir, "sweep")) return false;
  int written = 0;
  for (const PointResult& r : rs) {
    const SweepPoint* p = point_of(r, rows);
    if (p == nullptr) continue;
    const std::optional<Scenario> s = scenario_of(*p, rows.base_path);
    if (!s) continue;
    const std::string k = std::to_string(p->index + 1);
    const std::string stem = (std::filesystem::path(dir) / ("point-" + k)).string();
    std::string yaml;
    try {
      yaml = scenario_file_text(rows.base_path, p->overrides, s->name + "-point-" + k,
                                "hcpsim sweep point " + k + ": " + label_text(*p, rows.columns));
    } catch (const std::exception& x) {
      std::cerr << "hcpsim sweep: --emit: " << x.what() << '\n';
      return false;
    }
    if (!write_layout_files(stem, yaml, p->overrides, *s, "pretrain_gpt.py arguments of sweep point " + k,
                            "hcpsim sweep: --emit: point-" + k))
      return false;
    ++written;
  }
  std::fprintf(stderr, "sweep: wrote %d points to %s (point-K.yaml, .overrides, .megatron.sh, .bridge; .warnings where "
                       "those cannot say everything)\n", written, dir.c_str());
  return true;
}

}  // namespace hcpsim::cli
