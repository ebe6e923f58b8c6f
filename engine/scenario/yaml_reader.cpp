#include "engine/scenario/yaml_reader.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "engine/scenario/limits.h"
#include "engine/scenario/schema.h"

namespace hcpsim::detail {

const char* node_kind(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  return "a value";
}

std::string join_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string clip(const std::string& s) {
  constexpr std::size_t kShown = 60;
  if (s.size() <= kShown) return s;
  std::size_t cut = kShown;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;   // whole UTF-8 characters
  return s.substr(0, cut) + "... (" + std::to_string(s.size()) + " characters)";
}

bool YamlReader::check_list_size(const YAML::Node& n, const std::string& path, std::size_t max_items) {
  if (n.size() <= max_items) return true;
  error(n, path, "the list has " + std::to_string(n.size()) + " entries; at most " + std::to_string(max_items) +
                     " are allowed here");
  return false;
}

int YamlReader::override_covering(const std::string& path) const {
  // The last override wins, so search from the back for one whose path is a prefix of `path`.
  for (std::size_t i = overrides_.size(); i-- > 0;) {
    const std::string& p = overrides_[i].path;
    if (path.compare(0, p.size(), p) != 0) continue;
    if (path.size() == p.size() || path[p.size()] == '.' || path[p.size()] == '[')
      return static_cast<int>(i) + 1;
  }
  return 0;
}

SourceLocation YamlReader::where(const YAML::Node& n, const std::string& path) const {
  SourceLocation loc;
  if (const int o = override_covering(path); o > 0) {
    loc.override_index = o;
    return loc;
  }
  if (n.IsDefined() && !n.Mark().is_null()) {
    loc.line = n.Mark().line + 1;
    loc.column = n.Mark().column + 1;
    return loc;
  }
  // A node an override created has no mark: use the nearest recorded parent, else the override that
  // created a sibling (e.g. cluster.gpu.name=x made cluster.gpu, whose bf16_tflops is then missing).
  for (std::string p = path; !p.empty();) {
    if (locations_ != nullptr) {
      auto it = locations_->find(p);
      if (it != locations_->end()) return it->second;
    }
    for (std::size_t i = overrides_.size(); i-- > 0;) {
      const std::string& o = overrides_[i].path;
      if (o.size() > p.size() && o.compare(0, p.size(), p) == 0 && (o[p.size()] == '.' || o[p.size()] == '[')) {
        loc.override_index = static_cast<int>(i) + 1;
        return loc;
      }
    }
    const auto cut = p.find_last_of(".[");
    if (cut == std::string::npos) break;
    p.resize(cut);
  }
  return loc;
}

static std::string with_override(const SourceLocation& loc, const std::vector<OverrideSource>& ov,
                                 std::string message) {
  if (loc.override_index <= 0) return message;
  return "<override " + std::to_string(loc.override_index) + ": '" +
         clip(ov[static_cast<std::size_t>(loc.override_index - 1)].text) + "'> " + message;
}

void YamlReader::error(const YAML::Node& n, const std::string& path, std::string message,
                       std::vector<std::string> hints) {
  const SourceLocation loc = where(n, path);
  diags_.error(path, with_override(loc, overrides_, std::move(message)), loc.line, loc.column,
               std::move(hints));
}

void YamlReader::warning(const YAML::Node& n, const std::string& path, std::string message,
                         std::vector<std::string> hints) {
  const SourceLocation loc = where(n, path);
  diags_.warning(path, with_override(loc, overrides_, std::move(message)), loc.line, loc.column,
                 std::move(hints));
}

void YamlReader::record(const YAML::Node& key, const std::string& path) {
  if (locations_ == nullptr) return;
  (*locations_)[path] = where(key, path);
}

bool YamlReader::check_map(const YAML::Node& n, const std::string& path, const std::string& schema_path) {
  return check_keys(n, path, schema::child_keys(schema_path),
                    [&](const YAML::Node& key, const std::string& p, const std::string& k) {
                      if (const std::string what = schema::unmodelled_bridge_field(p); !what.empty())
                        warning(key, p, "Megatron-Bridge field accepted but not modelled by hcpsim: " + what + " is ignored");
                      else
                        error(key, p, "unknown key '" + clip(k) + "'",
                              {schema::did_you_mean(k, schema::child_keys(schema_path))});
                    });
}

bool YamlReader::check_keys(const YAML::Node& n, const std::string& path, const std::vector<std::string>& valid,
                            const UnknownKey& unknown) {
  if (!n.IsMap()) {
    std::string keys;
    for (const auto& k : valid) keys += (keys.empty() ? "" : ", ") + k;
    error(n, path, std::string("expected a mapping of fields, got ") + node_kind(n), {"valid keys here: " + keys});
    return false;
  }
  std::set<std::string> seen;
  for (auto it = n.begin(); it != n.end(); ++it) {
    const YAML::Node key = it->first;
    if (!key.IsScalar()) {
      error(key, path, "a key must be a plain name, got " + std::string(node_kind(key)));
      continue;
    }
    const std::string k = key.Scalar();
    const std::string p = join_path(path, k);
    if (!seen.insert(k).second) {
      error(key, p, "duplicate key '" + clip(k) + "'; a key may appear only once");
      continue;
    }
    if (std::find(valid.begin(), valid.end(), k) == valid.end()) {
      unknown(key, p, k);
      continue;
    }
    record(key, p);
  }
  return true;
}

bool YamlReader::is_scalar(const YAML::Node& n, const std::string& path, const std::string& what) {
  if (n.IsScalar()) return true;
  error(n, path, "expected " + what + ", got " + node_kind(n));
  return false;
}

std::optional<std::int64_t> YamlReader::int_of(const YAML::Node& n, const std::string& path,
                                               std::int64_t min_value) {
  if (!is_scalar(n, path, "a whole number")) return std::nullopt;
  const std::string& s = n.Scalar();
  std::int64_t v = 0;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (b != e && *b == '+') ++b;
  auto [ptr, ec] = std::from_chars(b, e, v);
  if (ec == std::errc::result_out_of_range) {
    error(n, path, "number '" + clip(s) + "' is too large");
    return std::nullopt;
  }
  if (ec != std::errc() || ptr != e || b == e) {
    error(n, path, "expected a whole number, got '" + clip(s) + "'");
    return std::nullopt;
  }
  if (v < min_value) {
    error(n, path, "must be " + std::string(min_value == 1 ? "positive" : ">= " + std::to_string(min_value)) +
                       ", got " + std::to_string(v));
    return std::nullopt;
  }
  if (v > 2147483647LL) {
    error(n, path, "number " + std::to_string(v) + " is too large (at most 2147483647)");
    return std::nullopt;
  }
  return v;
}

std::optional<std::string> YamlReader::string_of(const YAML::Node& n, const std::string& path,
                                                 std::size_t max_chars) {
  if (!is_scalar(n, path, "a text value")) return std::nullopt;
  if (n.Scalar().size() > max_chars) {
    error(n, path, "text of " + std::to_string(n.Scalar().size()) + " characters; at most " +
                       std::to_string(max_chars) + " are allowed here");
    return std::nullopt;
  }
  return n.Scalar();
}

std::optional<double> YamlReader::number_of(const YAML::Node& n, const std::string& path) {
  if (!is_scalar(n, path, "a number")) return std::nullopt;
  const std::string& s = n.Scalar();
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) {
    error(n, path, "expected a number, got '" + clip(s) + "'");
    return std::nullopt;
  }
  return v;
}

std::optional<bool> YamlReader::bool_of(const YAML::Node& n, const std::string& path) {
  if (n.IsScalar()) {
    const std::string& s = n.Scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
  }
  error(n, path, "expected true or false, got " +
                     (n.IsScalar() ? "'" + clip(n.Scalar()) + "'" : std::string(node_kind(n))));
  return std::nullopt;
}

std::optional<std::int64_t> YamlReader::get_int(const YAML::Node& map, const std::string& parent,
                                                const std::string& key, std::int64_t min_value) {
  const YAML::Node n = map[key];
  if (!n.IsDefined()) return std::nullopt;
  return int_of(n, join_path(parent, key), min_value);
}

std::optional<double> YamlReader::get_fraction(const YAML::Node& map, const std::string& parent,
                                               const std::string& key, double lo, double hi, bool lo_open) {
  const YAML::Node n = map[key];
  if (!n.IsDefined()) return std::nullopt;
  const std::string path = join_path(parent, key);
  const std::optional<double> number = number_of(n, path);
  if (!number) return std::nullopt;
  const double v = *number;
  const std::string& s = n.Scalar();
  const bool low_ok = lo_open ? v > lo : v >= lo;
  if (!low_ok || v > hi) {
    auto num = [](double x) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", x);
      return std::string(buf);
    };
    const std::string range = std::string(lo_open ? "(" : "[") + num(lo) + ", " + num(hi) + "]";
    error(n, path, "value " + clip(s) + " is outside the valid range " + range);
    return std::nullopt;
  }
  return v;
}

std::optional<bool> YamlReader::get_bool(const YAML::Node& map, const std::string& parent,
                                         const std::string& key) {
  const YAML::Node n = map[key];
  if (!n.IsDefined()) return std::nullopt;
  return bool_of(n, join_path(parent, key));
}

std::optional<std::string> YamlReader::get_string(const YAML::Node& map, const std::string& parent,
                                                  const std::string& key, std::size_t max_chars) {
  const YAML::Node n = map[key];
  if (!n.IsDefined()) return std::nullopt;
  return string_of(n, join_path(parent, key), max_chars);
}

std::optional<std::string> YamlReader::get_choice(const YAML::Node& map, const std::string& parent,
                                                  const std::string& key,
                                                  const std::vector<std::string>& valid) {
  auto s = get_string(map, parent, key);
  if (!s) return std::nullopt;
  if (std::find(valid.begin(), valid.end(), *s) != valid.end()) return s;
  std::string list;
  for (const auto& v : valid) list += (list.empty() ? "" : ", ") + v;
  std::vector<std::string> hints;
  const std::string best = schema::closest(*s, valid);
  if (!best.empty()) hints.push_back("did you mean '" + best + "'?");
  error(map[key], join_path(parent, key), "invalid value '" + clip(*s) + "' (valid values: " + list + ")",
        hints);
  return std::nullopt;
}

std::optional<double> YamlReader::get_quantity(const YAML::Node& map, const std::string& parent,
                                               const std::string& key, QuantityKind kind) {
  const YAML::Node n = map[key];
  if (!n.IsDefined()) return std::nullopt;
  const std::string path = join_path(parent, key);
  if (!is_scalar(n, path, std::string("a ") + to_string(kind) + " with a unit (e.g. '" + example_quantity(kind) + "')"))
    return std::nullopt;
  if (n.Scalar().size() > 64) {
    error(n, path, "'" + clip(n.Scalar()) + "' is not a " + to_string(kind),
          {std::string("write it like '") + example_quantity(kind) + "'"});
    return std::nullopt;
  }
  auto r = parse_quantity(n.Scalar(), kind);
  if (!r.value) {
    error(n, path, r.error, {std::string("write it like '") + example_quantity(kind) + "'"});
    return std::nullopt;
  }
  return r.value;
}

}  // namespace hcpsim::detail
