#include "engine/core/diagnostics.h"

#include <sstream>

namespace hcpsim {

void Diagnostics::add(Diagnostic d) {
  std::size_t& kept = d.severity == Severity::Error ? errors_ : warnings_;
  if (d.severity != Severity::Note && kept >= kMaxKept) {
    ++dropped_;
    return;
  }
  if (d.severity != Severity::Note) ++kept;
  items_.push_back(std::move(d));
}

void Diagnostics::error(std::string path, std::string message, int line, int column,
                        std::vector<std::string> hints) {
  add({Severity::Error, std::move(path), line, column, std::move(message), std::move(hints)});
}

void Diagnostics::warning(std::string path, std::string message, int line, int column,
                          std::vector<std::string> hints) {
  add({Severity::Warning, std::move(path), line, column, std::move(message), std::move(hints)});
}

bool Diagnostics::has_errors() const { return error_count() > 0; }

std::size_t Diagnostics::error_count() const { return errors_; }

std::size_t Diagnostics::warning_count() const { return warnings_; }

void Diagnostics::append(const Diagnostics& other) {
  for (const auto& d : other.items_) add(d);
  dropped_ += other.dropped_;
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
  if (ds.dropped() > 0)
    out += (file.empty() ? std::string("<input>") : file) + ": note: " + std::to_string(ds.dropped()) +
           " more diagnostics not shown (the first " + std::to_string(Diagnostics::kMaxKept) +
           " errors and warnings are)\n";
  return out;
}

static std::string summary(const Diagnostics& diags, const std::string& file) {
  return format_diagnostics(diags, file);
}

ScenarioError::ScenarioError(Diagnostics diags, std::string file)
    : std::runtime_error(summary(diags, file)), diags_(std::move(diags)), file_(std::move(file)) {}

}  // namespace hcpsim
