#include "engine/planning/sweep_merge.h"

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>

#include "engine/planning/sweep_shard.h"
#include "engine/planning/sweep_spec.h"

namespace hcpsim::planning {
namespace {

struct Part {
  std::string path;
  ShardHeader header;
};

// The description fields in which two sweeps differ, for the message.
std::string differing_fields(const nlohmann::json& a, const nlohmann::json& b) {
  std::string out;
  for (const auto& [key, value] : a.items()) {
    if (key == "file" || (b.contains(key) && b.at(key) == value)) continue;
    out += (out.empty() ? "" : ", ") + key;
    if (value.is_string() || value.is_number())
      out += " (" + value.dump() + " vs " + (b.contains(key) ? b.at(key).dump() : std::string("none")) + ")";
  }
  return out.empty() ? "the header" : out;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (std::size_t i = 0; i < lines.size(); ++i) s += (i ? "\n" : "") + lines[i];
  return s;
}

}  // namespace

MergedSweep merge_shard_files(const std::vector<std::string>& paths) {
  if (paths.empty()) throw std::invalid_argument("no part files given (hcpsim sweep merge part-*.csv --out all.csv)");
  std::vector<Part> parts;
  for (const std::string& path : paths) {
    if (!std::filesystem::is_regular_file(path)) throw std::runtime_error(path + ": no such file");
    std::optional<ShardHeader> h = read_shard_header(path);
    if (!h)
      throw std::runtime_error(path + ": no shard header on line 1: not a part written by `hcpsim sweep ... "
                                      "--shard I/N` (the output of a run without --shard needs no merge)");
    parts.push_back({path, std::move(*h)});
  }
  const Part& first = parts.front();
  const int n = first.header.shard.count;
  const FileFormat fmt = file_format_for(first.path);
  std::vector<std::string> errors;
  std::map<int, std::string> by_shard;
  for (const Part& p : parts) {
    if (p.header.shard.count != n) {
      errors.push_back(p.path + " is shard " + to_string(p.header.shard) + " but " + first.path + " is shard " +
                       to_string(first.header.shard) + ": all parts must come from one --shard I/" +
                       std::to_string(n) + " run");
      continue;
    }
    if (p.header.sweep_id != first.header.sweep_id) {
      errors.push_back(p.path + " belongs to another sweep than " + first.path + " (sweep " + p.header.sweep_id +
                       " vs " + first.header.sweep_id + "; they differ in: " +
                       differing_fields(p.header.sweep, first.header.sweep) + ")");
      continue;
    }
    if (file_format_for(p.path) != fmt) {
      errors.push_back(p.path + " and " + first.path + " are in different formats (CSV and JSON lines): " +
                       "merge parts written with the same --out extension");
      continue;
    }
    const auto [it, fresh] = by_shard.emplace(p.header.shard.index, p.path);
    if (!fresh)
      errors.push_back(p.path + " and " + it->second + " are both shard " + to_string(p.header.shard) +
                       ": give each shard once");
  }
  if (errors.empty())
    for (int i = 1; i <= n; ++i)
      if (!by_shard.count(i))
        errors.push_back("shard " + std::to_string(i) + "/" + std::to_string(n) + " is missing: none of the " +
                         std::to_string(parts.size()) + " files given is that shard (run `hcpsim sweep ... --shard " +
                         std::to_string(i) + "/" + std::to_string(n) + "` and add its part file)");
  if (!errors.empty()) throw std::runtime_error(join_lines(errors));

  MergedSweep m;
  m.sweep = first.header.sweep;
  m.shards = n;
  const SweepSpec spec = spec_of_description(m.sweep);
  m.metric = spec.metric;
  m.columns = sweep_columns(spec);
  const std::vector<SweepPoint> points = expand_points(spec, {});
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < points.size(); ++i) position.emplace(points[i].key(m.columns), i);
  std::vector<std::optional<PointResult>> slots(points.size());
  std::vector<std::string> origin(points.size());
  for (const Part& p : parts) {
    for (PointResult& r : read_results_file(p.path, m.columns)) {
      SweepPoint tmp;
      tmp.labels = r.labels;
      const std::string key = tmp.key(m.columns);
      const auto it = position.find(key);
      if (it == position.end()) {
        errors.push_back(p.path + ": point " + key + " is not a point of this sweep");
        continue;
      }
      const std::size_t i = it->second;
      if (!in_shard(i, p.header.shard)) {
        errors.push_back(p.path + " (shard " + to_string(p.header.shard) + "): point " + key + " belongs to shard " +
                         std::to_string(i % n + 1) + "/" + std::to_string(n));
        continue;
      }
      if (slots[i]) {
        errors.push_back(p.path + ": point " + key + " appears twice in the file");
        continue;
      }
      slots[i] = std::move(r);
      origin[i] = p.path;
    }
  }
  for (const Part& p : parts) {
    std::size_t expected = 0, missing = 0;
    std::string examples;
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (!in_shard(i, p.header.shard)) continue;
      ++expected;
      if (slots[i]) continue;
      if (++missing <= 3) examples += (missing > 1 ? "; " : "") + points[i].key(m.columns);
    }
    if (missing > 0)
      errors.push_back(p.path + " (shard " + to_string(p.header.shard) + "): " + std::to_string(missing) + " of its " +
                       std::to_string(expected) + " points are missing (" + examples + (missing > 3 ? "; ..." : "") +
                       "): the shard did not finish; rerun it with --resume, then merge");
  }
  if (!errors.empty()) throw std::runtime_error(join_lines(errors));
  for (auto& r : slots) m.results.push_back(std::move(*r));
  return m;
}

}  // namespace hcpsim::planning
