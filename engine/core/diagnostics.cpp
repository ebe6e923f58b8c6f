#include "engine/core/diagnostics.h"

#include <sstream>

namespace hcpsim {

void Diagnostics::error(std::string path, std::string message, int line, int column,
                        std::vector<std::string> hints) {
  items_.push_back({Severity::Error, std::move(path), line, column, std::move(message), std::move(hints)});
}

void Diagnostics::warning(std::string path, std::string message, int line, int column,
                          std::vector<std::string> hints) {
  items_.push_back({Severity::Warning, std::move(path), line, column, std::move(message), std::move(hints)});
}

bool Diagnostics::has_errors() const { return error_count() > 0; }

std::size_t Diagnostics::error_count() const {
  std::size_t n = 0;
  for (const auto& d : items_) n += d.severity == Severity::Error;
  return n;
}

std::size_t Diagnostics::warning_count() const {
  std::size_t n = 0;
  for (const auto& d : items_) n += d.severity == Severity::Warning;
  return n;
}

void Diagnostics::append(const Diagnostics& other) {
  items_.insert(items_.end(), other.items_.begin(), other.items_.end());
}

std::string format_diagnostic(const Diagnostic& d, const std::string& file) {
  std::ostringstream os;
  os << (file.empty() ? "<input>" : file);
  if (d.line > 0) {
    os << ':' << d.line;
    if (d.column > 0) os << ':' << d.column;
  }
  os << ": "
     << (d.severity == Severity::Error ? "error" : d.severity == Severity::Warning ? "warning" : "note")
     << ": ";
  if (!d.path.empty()) os << d.path << ": ";
  os << d.message << '\n';
  for (const auto& h : d.hints) os << "  hint: " << h << '\n';
  return os.str();
}

std::string format_diagnostics(const Diagnostics& ds, const std::string& file) {
  std::string out;
  for (const auto& d : ds.items()) out += format_diagnostic(d, file);
  return out;
}

static std::string summary(const Diagnostics& diags, const std::string& file) {
  return format_diagnostics(diags, file);
}

ScenarioError::ScenarioError(Diagnostics diags, std::string file)
    : std::runtime_error(summary(diags, file)), diags_(std::move(diags)), file_(std::move(file)) {}

}  // namespace hcpsim
