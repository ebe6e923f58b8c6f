#include "engine/planning/sweep_shard.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace hcpsim::planning {
namespace {

constexpr int kMaxShards = 100000;
constexpr const char* kHeaderKey = "hcpsim_sweep_shard";

int parse_positive(const std::string& s, const std::string& whole) {
  if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument("--shard " + whole + ": expected I/N with whole numbers 1 <= I <= N <= " +
                                std::to_string(kMaxShards) + " (e.g. --shard 2/3)");
  return std::stoi(s);
}

}  // namespace

ShardSpec parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos)
    throw std::invalid_argument("--shard " + text + ": expected I/N, shard I of N counted from 1 (e.g. --shard 2/3)");
  ShardSpec s;
  s.index = parse_positive(text.substr(0, slash), text);
  s.count = parse_positive(text.substr(slash + 1), text);
  if (s.count < 1 || s.count > kMaxShards || s.index < 1 || s.index > s.count)
    throw std::invalid_argument("--shard " + text + ": I must be in 1.." + std::to_string(s.count) +
                                " and N in 1.." + std::to_string(kMaxShards) + " (shards are counted from 1)");
  return s;
}

std::string to_string(const ShardSpec& s) { return std::to_string(s.index) + "/" + std::to_string(s.count); }

bool in_shard(std::size_t point_index, const ShardSpec& s) {
  return point_index % static_cast<std::size_t>(s.count) == static_cast<std::size_t>(s.index - 1);
}

std::vector<SweepPoint> shard_points(const std::vector<SweepPoint>& points, const ShardSpec& s) {
  std::vector<SweepPoint> out;
  for (const SweepPoint& p : points)
    if (in_shard(p.index, s)) out.push_back(p);
  return out;
}

std::string fnv1a64_hex(const std::string& bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

nlohmann::json describe_sweep(const SweepSpec& spec, const SweepDescriptionInput& in) {
  nlohmann::json d;
  d["file"] = in.file;
  d["file_fnv1a64"] = fnv1a64_hex(in.file_text);
  d["base_fnv1a64"] = fnv1a64_hex(in.base_text);
  std::vector<std::string> overrides = spec.overrides;
  overrides.insert(overrides.end(), in.extra_overrides.begin(), in.extra_overrides.end());
  d["overrides"] = overrides;
  nlohmann::json axes = nlohmann::json::array();
  std::size_t points = spec.groups.empty() ? 0 : 1;
  for (const AxisGroup& g : spec.groups) {
    nlohmann::json values = nlohmann::json::array();
    for (const AxisValue& v : g.values) values.push_back({{"labels", v.labels}, {"overrides", v.overrides}});
    axes.push_back({{"columns", g.columns}, {"values", values}});
    points *= g.values.size();
  }
  d["axes"] = axes;
  d["points"] = points;
  d["backend"] = spec.backend;
  d["recompute"] = in.recompute;
  d["metric"] = spec.metric;
  d["configuration"] = in.configuration;
  return d;
}

std::string sweep_id(const nlohmann::json& description) {
  nlohmann::json d = description;
  d.erase("file");
  return fnv1a64_hex(d.dump());
}

std::string shard_header_line(const ShardHeader& h, bool csv) {
  nlohmann::json body{{"shard", h.shard.index}, {"shards", h.shard.count}, {"sweep_id", h.sweep_id}, {"sweep", h.sweep}};
  const std::string line = nlohmann::json{{kHeaderKey, body}}.dump();
  return csv ? "# " + line : line;
}

std::optional<ShardHeader> read_shard_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  if (line.rfind("# ", 0) == 0) line = line.substr(2);
  if (line.rfind(std::string("{\"") + kHeaderKey + "\"", 0) != 0) return std::nullopt;
  try {
    const nlohmann::json j = nlohmann::json::parse(line).at(kHeaderKey);
    ShardHeader h;
    h.shard.index = j.at("shard").get<int>();
    h.shard.count = j.at("shards").get<int>();
    h.sweep_id = j.at("sweep_id").get<std::string>();
    h.sweep = j.at("sweep");
    if (h.shard.count < 1 || h.shard.index < 1 || h.shard.index > h.shard.count)
      throw std::runtime_error("shard " + to_string(h.shard) + " is not a shard I/N with 1 <= I <= N");
    if (sweep_id(h.sweep) != h.sweep_id)
      throw std::runtime_error("the sweep description does not match its sweep_id " + h.sweep_id +
                               " (the header was edited)");
    (void)spec_of_description(h.sweep);
    return h;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ":1: malformed shard header: " + e.what());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ":1: malformed shard header: " + e.what());
  }
}

SweepSpec spec_of_description(const nlohmann::json& description) {
  SweepSpec spec;
  for (const nlohmann::json& a : description.at("axes")) {
    AxisGroup g;
    g.columns = a.at("columns").get<std::vector<std::string>>();
    for (const nlohmann::json& v : a.at("values")) {
      AxisValue value;
      value.labels = v.at("labels").get<std::vector<std::string>>();
      value.overrides = v.at("overrides").get<std::vector<std::string>>();
      if (value.labels.size() != g.columns.size())
        throw std::runtime_error("an axis value has " + std::to_string(value.labels.size()) + " labels for " +
                                 std::to_string(g.columns.size()) + " columns");
      g.values.push_back(std::move(value));
    }
    spec.groups.push_back(std::move(g));
  }
  spec.metric = description.at("metric").get<std::string>();
  spec.backend = description.at("backend").get<std::string>();
  return spec;
}

}  // namespace hcpsim::planning
