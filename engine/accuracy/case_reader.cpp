#include "engine/accuracy/case_reader.h"

#include <algorithm>
#include <limits>

#include "engine/scenario/schema.h"

namespace hcpsim::accuracy::detail {

using hcpsim::detail::join_path;

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

bool CaseReader::check_map(const YAML::Node& n, const std::string& path, const std::vector<std::string>& allowed,
                           const std::map<std::string, std::string>& other_kind) {
  return yaml_.check_keys(n, path, allowed, [&](const YAML::Node& key, const std::string& p, const std::string& k) {
    if (auto it = other_kind.find(k); it != other_kind.end())
      error(key, p, "'" + k + "' belongs to kind: " + it->second + ", not to kind: " + kind_,
            {"keys of kind " + kind_ + ": " + join(allowed)});
    else
      error(key, p, "unknown key '" + k + "'", {schema::did_you_mean(k, allowed)});
  });
}

std::optional<CaseReader::Field> CaseReader::field(const YAML::Node& map, const std::string& parent,
                                                   const std::string& key, bool required) {
  Field f{map[key], join_path(parent, key)};
  if (f.node.IsDefined() && !f.node.IsNull()) return f;
  if (required) error(map, f.path, "missing required field '" + key + "'");
  return std::nullopt;
}

std::optional<std::string> CaseReader::string(const YAML::Node& map, const std::string& parent, const std::string& key,
                                              bool required) {
  const auto f = field(map, parent, key, required);
  // No length limit here: the loader checks each text field's own rules (a case name's, say).
  return f ? yaml_.string_of(f->node, f->path, std::numeric_limits<std::size_t>::max()) : std::nullopt;
}

std::optional<std::string> CaseReader::choice(const YAML::Node& map, const std::string& parent, const std::string& key,
                                              const std::vector<std::string>& valid, bool required) {
  auto s = string(map, parent, key, required);
  if (!s) return s;
  if (std::find(valid.begin(), valid.end(), *s) == valid.end()) {
    error(map[key], join_path(parent, key), "'" + *s + "' is not valid; valid: " + join(valid));
    return std::nullopt;
  }
  return s;
}

std::optional<double> CaseReader::number(const YAML::Node& map, const std::string& parent, const std::string& key,
                                         bool required, bool positive) {
  const auto f = field(map, parent, key, required);
  if (!f) return std::nullopt;
  const auto v = yaml_.number_of(f->node, f->path);
  if (v && positive && *v <= 0) {
    error(f->node, f->path, "must be > 0 (got " + f->node.Scalar() + ")");
    return std::nullopt;
  }
  return v;
}

std::optional<std::int64_t> CaseReader::integer(const YAML::Node& map, const std::string& parent, const std::string& key,
                                                bool required, std::int64_t min_value) {
  const auto f = field(map, parent, key, required);
  return f ? yaml_.int_of(f->node, f->path, min_value) : std::nullopt;
}

std::optional<bool> CaseReader::boolean(const YAML::Node& map, const std::string& parent, const std::string& key,
                                        bool required) {
  const auto f = field(map, parent, key, required);
  return f ? yaml_.bool_of(f->node, f->path) : std::nullopt;
}

}  // namespace hcpsim::accuracy::detail
