#pragma once
// Internal to the case loader: typed reads of one case mapping, through the scenario loader's YAML
// reader (engine/scenario/yaml_reader.h). Each getter records an error (FILE:LINE:COL from the
// node's mark, the dotted field, what is valid) and returns nullopt when the value is present but
// wrong; `required` getters also report a missing key.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/accuracy/accuracy_case.h"
#include "engine/core/diagnostics.h"
#include "engine/scenario/yaml_reader.h"

namespace hcpsim::accuracy::detail {

class CaseReader {
 public:
  // Errors go to `d`; field positions are recorded in c.locations.
  CaseReader(Diagnostics& d, AccuracyCase& c) : yaml_(d, &c.locations, {}) {}

  // The case's kind, named in messages about keys of another kind.
  void set_kind(const std::string& kind) { kind_ = kind; }

  // Records an error at `n`'s mark, or at the recorded position of `path` when `n` has none.
  void error(const YAML::Node& n, const std::string& path, std::string message, std::vector<std::string> hints = {}) {
    yaml_.error(n, path, std::move(message), std::move(hints));
  }

  // Checks that `n` is a mapping with only `allowed` keys (plus `other_kind` keys, which get a
  // message naming the kind they belong to); records each key's position. False when not a map.
  bool check_map(const YAML::Node& n, const std::string& path, const std::vector<std::string>& allowed,
                 const std::map<std::string, std::string>& other_kind = {});

  // map[key] under dotted `parent` ("" at the top level).
  std::optional<std::string> string(const YAML::Node& map, const std::string& parent, const std::string& key,
                                    bool required);
  std::optional<std::string> choice(const YAML::Node& map, const std::string& parent, const std::string& key,
                                    const std::vector<std::string>& valid, bool required);
  std::optional<double> number(const YAML::Node& map, const std::string& parent, const std::string& key,
                               bool required, bool positive);
  std::optional<std::int64_t> integer(const YAML::Node& map, const std::string& parent, const std::string& key,
                                      bool required, std::int64_t min_value);
  std::optional<bool> boolean(const YAML::Node& map, const std::string& parent, const std::string& key,
                              bool required);

  // Records the position of `n` as the position of field `path`.
  void record(const YAML::Node& n, const std::string& path) { yaml_.record_item(n, path); }

 private:
  // A key that is present (and not null), with its dotted path.
  struct Field {
    YAML::Node node;
    std::string path;
  };
  // map[key] when present; records "missing required field" when it is absent and `required`.
  std::optional<Field> field(const YAML::Node& map, const std::string& parent, const std::string& key, bool required);

  hcpsim::detail::YamlReader yaml_;
  std::string kind_ = "?";
};

// "a, b, c"
std::string join(const std::vector<std::string>& v, const char* sep = ", ");

}  // namespace hcpsim::accuracy::detail
