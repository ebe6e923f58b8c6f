// Reading scenario text: file checks, UTF-8, YAML parsing, overrides, then conversion.
#include "engine/scenario/loader.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <unistd.h>

#include "engine/scenario/convert.h"
#include "engine/scenario/overrides.h"
#include "engine/scenario/scenario_file.h"
#include "engine/scenario/yaml_documents.h"

namespace hcpsim {

namespace fs = std::filesystem;

namespace {

// Finds the first byte that is not valid UTF-8 (or a control character other than tab/CR/LF);
// returns false and its 1-based line/column.
bool check_text(const std::string& s, int& line, int& col, std::string& what) {
  line = 1;
  col = 1;
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = 1;
    if (c < 0x80) {
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
        char buf[8];
        std::snprintf(buf, sizeof buf, "0x%02X", c);
        what = std::string("control character ") + buf;
        return false;
      }
    } else {
      if (c >= 0xC2 && c <= 0xDF) len = 2;
      else if (c >= 0xE0 && c <= 0xEF) len = 3;
      else if (c >= 0xF0 && c <= 0xF4) len = 4;
      else len = 0;
      bool ok = len > 0 && i + len <= s.size();
      for (std::size_t k = 1; ok && k < len; ++k)
        ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
      if (!ok) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "0x%02X", c);
        what = std::string("byte ") + buf + " that is not valid UTF-8";
        return false;
      }
    }
    if (c == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
    i += len;
  }
  return true;
}

Scenario load_text(const std::string& text, const LoadOptions& options, const std::string& file,
                   const std::string& base_dir, Diagnostics* warnings) {
  Diagnostics diags;
  auto fail = [&]() { throw ScenarioError(diags, file); };
  int line = 0, col = 0;
  std::string what;
  if (!check_text(text, line, col, what)) {
    diags.error("", "the scenario contains a " + what + "; scenario files must be UTF-8 text", line, col);
    fail();
  }
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    diags.error("", "the scenario is empty", 1, 1, {"start from one of the files in scenarios/"});
    fail();
  }
  YAML::Node root;
  try {
    const detail::YamlDocumentScan scan = detail::scan_yaml_documents(text);
    if (scan.stalled) {
      const std::size_t at = scan.stall_mark.pos >= 0 ? static_cast<std::size_t>(scan.stall_mark.pos) : 0;
      const char c = at < text.size() ? text[at] : '?';
      diags.error("", std::string("YAML syntax error: unexpected '") + c +
                          "' where a value or a key should start (outside any [list] or {mapping})",
                  scan.stall_mark.line + 1, scan.stall_mark.column + 1);
      fail();
    }
    if (scan.documents == 0 || (scan.documents == 1 && scan.first_is_null)) {
      diags.error("", "the scenario has no YAML content (only comments or an empty document)", 1, 1,
                  {"start from one of the files in scenarios/"});
      fail();
    }
    if (scan.documents > 1) {
      const auto& m = scan.second_content_mark;
      const std::string n = scan.documents > detail::YamlDocumentScan::kMaxDocuments
                                ? "more than " + std::to_string(detail::YamlDocumentScan::kMaxDocuments)
                                : std::to_string(scan.documents);
      diags.error("", "the scenario holds " + n + " YAML documents; a scenario is exactly one",
                  m.is_null() ? 1 : m.line + 1, m.is_null() ? 1 : m.column + 1);
      fail();
    }
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    diags.error("", "YAML syntax error: " + e.msg, e.mark.line + 1, e.mark.column + 1);
    fail();
  } catch (const YAML::Exception& e) {
    diags.error("", std::string("YAML error: ") + e.what(), e.mark.is_null() ? 1 : e.mark.line + 1,
                e.mark.is_null() ? 1 : e.mark.column + 1);
    fail();
  }
  return load_scenario_node(root, options, file, base_dir, warnings);
}

}  // namespace

Scenario load_scenario_node(YAML::Node root, const LoadOptions& options, const std::string& file,
                            const std::string& base_dir, Diagnostics* warnings) {
  Diagnostics diags;
  std::vector<detail::OverrideSource> applied;
  if (root.IsMap()) {
    applied = detail::apply_overrides(root, options.overrides, diags);
  }
  Scenario s;
  s.source_path = file;
  s.overrides = options.overrides;
  detail::YamlReader reader(diags, &s.locations, applied);
  detail::ConvertInputs in;
  in.hardware_dir = options.hardware_dir.empty() ? default_hardware_dir() : options.hardware_dir;
  in.base_dir = base_dir;
  try {
    detail::convert_scenario(root, reader, in, s);
  } catch (const YAML::Exception& e) {   // defensive: yaml-cpp may throw on odd trees
    diags.error("", std::string("YAML error: ") + e.what(), e.mark.is_null() ? 1 : e.mark.line + 1,
                e.mark.is_null() ? 1 : e.mark.column + 1);
  }
  if (diags.has_errors()) throw ScenarioError(diags, file);
  if (warnings != nullptr) warnings->append(diags);
  return s;
}

Scenario load_scenario_string(const std::string& yaml, const LoadOptions& options,
                              const std::string& name_for_messages, Diagnostics* warnings) {
  std::error_code ec;
  return load_text(yaml, options, name_for_messages, fs::current_path(ec).string(), warnings);
}

Scenario load_scenario_file(const std::string& path, const LoadOptions& options, Diagnostics* warnings) {
  Diagnostics diags;
  if (path.empty()) {
    diags.error("", "no scenario file given");
    throw ScenarioError(diags, "<none>");
  }
  std::string text;
  if (!read_scenario_bytes(path, text, diags)) throw ScenarioError(diags, path);
  std::error_code ec;
  const fs::path base = fs::absolute(fs::path(path), ec).parent_path();
  return load_text(text, options, path, base.string(), warnings);
}

std::string default_hardware_dir() {
  if (const char* env = std::getenv("HCPSIM_HARDWARE_DIR"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path dir = exe.parent_path();
    // Installed (PREFIX/bin -> PREFIX/share/hcpsim/hardware) first, then a build folder in the tree.
    for (const fs::path& rel : {fs::path("../share/hcpsim/hardware"), fs::path("../scenarios/hardware"),
                                fs::path("../../scenarios/hardware")}) {
      const fs::path cand = (dir / rel).lexically_normal();
      if (fs::is_directory(cand, ec)) return cand.string();
    }
  }
  return std::string(HCPSIM_SOURCE_DIR) + "/scenarios/hardware";
}

}  // namespace hcpsim
