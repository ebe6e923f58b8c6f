#pragma once
// Typed reads of YAML scalars with diagnostics that carry the field path, line and column (or the
// override that set the value), and checks of mapping keys: the scenario loader's reader, and the
// one under the accuracy case loader (engine/accuracy/case_reader.h).
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/diagnostics.h"
#include "engine/core/units.h"
#include "engine/scenario/limits.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::detail {

// An override as given on the command line: its dotted path and the whole "path=value" text.
struct OverrideSource {
  std::string path;
  std::string text;
};

class YamlReader {
 public:
  // `locations` may be null (presets: their positions are not the scenario's).
  YamlReader(Diagnostics& diags, std::map<std::string, SourceLocation>* locations,
             std::vector<OverrideSource> overrides)
      : diags_(diags), locations_(locations), overrides_(std::move(overrides)) {}

  // Position of node `n` at `path`: the override that set it, else the node's YAML mark (1-based).
  SourceLocation where(const YAML::Node& n, const std::string& path) const;
  void error(const YAML::Node& n, const std::string& path, std::string message,
             std::vector<std::string> hints = {});
  void warning(const YAML::Node& n, const std::string& path, std::string message,
               std::vector<std::string> hints = {});

  // Checks that `n` is a mapping whose keys are all in the schema under `schema_path` (which uses
  // "[]" for list items, `path` uses "[i]"); records each key's position. False when not a mapping.
  bool check_map(const YAML::Node& n, const std::string& path, const std::string& schema_path);
  // What check_keys does with a key that is not valid: (key node, its path, its name).
  using UnknownKey = std::function<void(const YAML::Node&, const std::string&, const std::string&)>;
  // The same check against the keys `valid`: a key must be a plain name, given once; each valid
  // key's position is recorded, any other key goes to `unknown`. False when `n` is not a mapping.
  bool check_keys(const YAML::Node& n, const std::string& path, const std::vector<std::string>& valid,
                  const UnknownKey& unknown);

  // Typed getters: nullopt when the key is absent (no error) or invalid (error recorded).
  std::optional<std::int64_t> get_int(const YAML::Node& map, const std::string& parent,
                                      const std::string& key, std::int64_t min_value);
  std::optional<double> get_fraction(const YAML::Node& map, const std::string& parent,
                                     const std::string& key, double lo, double hi, bool lo_open);
  std::optional<bool> get_bool(const YAML::Node& map, const std::string& parent, const std::string& key);
  // Texts longer than `max_chars` are errors (limits.h).
  std::optional<std::string> get_string(const YAML::Node& map, const std::string& parent,
                                        const std::string& key, std::size_t max_chars = limits::kMaxTextChars);
  std::optional<std::string> get_choice(const YAML::Node& map, const std::string& parent,
                                        const std::string& key, const std::vector<std::string>& valid);
  std::optional<double> get_quantity(const YAML::Node& map, const std::string& parent,
                                     const std::string& key, QuantityKind kind);

  // Scalar conversions of one node (used for list items too).
  std::optional<std::int64_t> int_of(const YAML::Node& n, const std::string& path, std::int64_t min_value);
  std::optional<std::string> string_of(const YAML::Node& n, const std::string& path,
                                       std::size_t max_chars = limits::kMaxTextChars);
  // A finite number (no unit).
  std::optional<double> number_of(const YAML::Node& n, const std::string& path);
  // true/false (also True, TRUE, False, FALSE).
  std::optional<bool> bool_of(const YAML::Node& n, const std::string& path);

  // False (error recorded) when list `n` has more than `max_items` entries.
  bool check_list_size(const YAML::Node& n, const std::string& path, std::size_t max_items);

  // Records the position of a list item (or any node) under `path`, e.g. "simulation.passes[1]".
  void record_item(const YAML::Node& n, const std::string& path) { record(n, path); }

  Diagnostics& diags() { return diags_; }

 private:
  int override_covering(const std::string& path) const;
  void record(const YAML::Node& key, const std::string& path);
  // True when `n` is a single value; else records "expected WHAT, got a mapping" (or a list...).
  bool is_scalar(const YAML::Node& n, const std::string& path, const std::string& what);

  Diagnostics& diags_;
  std::map<std::string, SourceLocation>* locations_;
  std::vector<OverrideSource> overrides_;
};

// "a mapping", "a list", "nothing", "a value"
const char* node_kind(const YAML::Node& n);
std::string join_path(const std::string& parent, const std::string& key);
// `s` for a message: as is when short, else its first characters and its length.
std::string clip(const std::string& s);

}  // namespace hcpsim::detail
