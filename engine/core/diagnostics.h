#pragma once
// Diagnostics: what validation and loading report about a scenario.
// Printed as `FILE:LINE:COL: error: field.path: message` followed by `  hint: ...` lines.
#include <stdexcept>
#include <string>
#include <vector>

namespace hcpsim {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string path;      // dotted field path, e.g. "model.hierarchical_context_parallel_sizes"
  int line = 0;          // 1-based YAML line; 0 when unknown (e.g. a command-line override)
  int column = 0;        // 1-based YAML column; 0 when unknown
  std::string message;
  std::vector<std::string> hints;
};

class Diagnostics {
 public:
  // At most this many errors and as many warnings are kept; later ones are only counted (dropped()),
  // so input with millions of mistakes neither floods the terminal nor fills memory.
  static constexpr std::size_t kMaxKept = 100;

  void add(Diagnostic d);
  void error(std::string path, std::string message, int line = 0, int column = 0,
             std::vector<std::string> hints = {});
  void warning(std::string path, std::string message, int line = 0, int column = 0,
               std::vector<std::string> hints = {});
  bool has_errors() const;
  std::size_t error_count() const;
  std::size_t warning_count() const;
  const std::vector<Diagnostic>& items() const { return items_; }
  bool empty() const { return items_.empty(); }
  void append(const Diagnostics& other);
  std::size_t dropped() const { return dropped_; }   // diagnostics beyond kMaxKept, not stored

 private:
  std::vector<Diagnostic> items_;
  std::size_t errors_ = 0, warnings_ = 0, dropped_ = 0;
};

// One diagnostic in compiler style: "FILE:LINE:COL: error: path: message\n  hint: ...\n".
std::string format_diagnostic(const Diagnostic& d, const std::string& file);
std::string format_diagnostics(const Diagnostics& ds, const std::string& file);

// Thrown by the loaders and builders when input cannot be used. Carries every diagnostic found.
class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(Diagnostics diags, std::string file);
  const Diagnostics& diagnostics() const { return diags_; }
  const std::string& file() const { return file_; }

 private:
  Diagnostics diags_;
  std::string file_;
};

}  // namespace hcpsim
