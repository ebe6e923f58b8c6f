#include "engine/accuracy/case_reader.h"

#include <algorithm>
#include <cmath>

#include "engine/scenario/schema.h"

namespace hcpsim::accuracy::detail {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

void CaseReader::error(const YAML::Node& n, const std::string& path, std::string message, std::vector<std::string> hints) {
  int line = 0, col = 0;
  if (n.IsDefined() && !n.Mark().is_null()) {
    line = n.Mark().line + 1;
    col = n.Mark().column + 1;
  } else if (auto it = case_.locations.find(path); it != case_.locations.end()) {
    line = it->second.line;
    col = it->second.column;
  }
  diags_.error(path, std::move(message), line, col, std::move(hints));
}

bool CaseReader::check_map(const YAML::Node& n, const std::string& path, const std::vector<std::string>& allowed,
                           const std::map<std::string, std::string>& other_kind) {
  if (!n.IsMap()) {
    error(n, path, std::string("expected a mapping, found ") + kind_of(n),
          {"valid keys: " + join(allowed)});
    return false;
  }
  for (const auto& kv : n) {
    const std::string key = kv.first.Scalar();
    const std::string p = path.empty() ? key : path + "." + key;
    record(kv.first, p);
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    if (auto it = other_kind.find(key); it != other_kind.end()) {
      error(kv.first, p, "'" + key + "' belongs to kind: " + it->second + ", not to kind: " + kind_,
            {"keys of kind " + kind_ + ": " + join(allowed)});
    } else {
      error(kv.first, p, "unknown key '" + key + "'", {schema::did_you_mean(key, allowed)});
    }
  }
  return true;
}

std::optional<CaseReader::Field> CaseReader::field(const YAML::Node& map, const std::string& parent,
                                                   const std::string& key, bool required) {
  Field f{map[key], parent.empty() ? key : parent + "." + key};
  if (f.node.IsDefined() && !f.node.IsNull()) return f;
  if (required) error(map, f.path, "missing required field '" + key + "'");
  return std::nullopt;
}

void CaseReader::wrong_type(const Field& f, const char* what) {
  error(f.node, f.path,
        std::string("expected ") + what + ", found " +
            (f.node.IsScalar() ? "'" + f.node.Scalar() + "'" : std::string(kind_of(f.node))));
}

std::optional<std::string> CaseReader::string(const YAML::Node& map, const std::string& parent, const std::string& key,
                                              bool required) {
  const auto f = field(map, parent, key, required);
  return f ? decode<std::string>(*f, "text") : std::nullopt;
}

std::optional<std::string> CaseReader::choice(const YAML::Node& map, const std::string& parent, const std::string& key,
                                              const std::vector<std::string>& valid, bool required) {
  auto s = string(map, parent, key, required);
  if (!s) return s;
  if (std::find(valid.begin(), valid.end(), *s) == valid.end()) {
    error(map[key], parent.empty() ? key : parent + "." + key, "'" + *s + "' is not valid; valid: " + join(valid));
    return std::nullopt;
  }
  return s;
}

std::optional<double> CaseReader::number(const YAML::Node& map, const std::string& parent, const std::string& key,
                                         bool required, bool positive) {
  const auto f = field(map, parent, key, required);
  if (!f) return std::nullopt;
  const auto v = decode<double>(*f, "a number");
  if (!v) return std::nullopt;
  if (!std::isfinite(*v)) {
    wrong_type(*f, "a number");
    return std::nullopt;
  }
  if (positive && *v <= 0) {
    error(f->node, f->path, "must be > 0 (got " + f->node.Scalar() + ")");
    return std::nullopt;
  }
  return v;
}

std::optional<std::int64_t> CaseReader::integer(const YAML::Node& map, const std::string& parent, const std::string& key,
                                                bool required, std::int64_t min_value) {
  const auto f = field(map, parent, key, required);
  if (!f) return std::nullopt;
  const auto v = decode<std::int64_t>(*f, "a whole number");
  if (v && *v < min_value) {
    error(f->node, f->path, "must be >= " + std::to_string(min_value) + " (got " + f->node.Scalar() + ")");
    return std::nullopt;
  }
  return v;
}

std::optional<bool> CaseReader::boolean(const YAML::Node& map, const std::string& parent, const std::string& key,
                                        bool required) {
  const auto f = field(map, parent, key, required);
  return f ? decode<bool>(*f, "true or false") : std::nullopt;
}

void CaseReader::record(const YAML::Node& n, const std::string& path) {
  if (n.IsDefined() && !n.Mark().is_null())
    case_.locations[path] = SourceLocation{n.Mark().line + 1, n.Mark().column + 1, 0};
}

const char* CaseReader::kind_of(const YAML::Node& n) {
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  if (n.IsNull() || !n.IsDefined()) return "nothing";
  return "a value";
}

}  // namespace hcpsim::accuracy::detail
