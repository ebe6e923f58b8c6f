#include "engine/accuracy/error_band.h"

#include <cstdio>
#include <sstream>

#include "engine/accuracy/accuracy_report.h"
#include "engine/accuracy/case_class.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::accuracy {

namespace {

std::string signed_percent(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f %%", f * 100);
  return buf;
}

const ErrorBand* find_class(const std::vector<ErrorBand>& table, const std::string& name) {
  for (const auto& b : table)
    if (b.case_class == name) return &b;
  return nullptr;
}

}  // namespace

std::string case_class_of(const Scenario& s) {
  return std::string(s.train.mode == TrainMode::Prefill ? "prefill" : "whole_step") + "/" + precision_of(s);
}

std::optional<ErrorBand> band_in(const std::vector<ErrorBand>& table, const std::string& case_class) {
  for (const std::string& name : {case_class, level_of_class(case_class)}) {
    const ErrorBand* b = find_class(table, name);
    if (b && b->holdout_cases >= kMinBandHoldoutCases) return *b;
  }
  return std::nullopt;
}

std::optional<ErrorBand> error_band_for(const Scenario& s) { return band_in(error_band_table(), case_class_of(s)); }

std::vector<ErrorBand> error_bands_of(const AccuracyReport& r) {
  std::vector<ErrorBand> out;
  for (const auto& c : r.classes)
    if (c.holdout.count > 0)
      out.push_back(ErrorBand{c.holdout_low_fraction, c.holdout_high_fraction, c.name, static_cast<int>(c.holdout.count)});
  return out;
}

std::string error_band_table_source(const std::vector<ErrorBand>& bands) {
  std::ostringstream os;
  os << "// Generated: the error band of every case class of validation/published (error_band.h).\n"
        "// Regenerate after the model or the cases change (test_error_band refuses a stale table):\n"
        "//   build/cli/hcpsim accuracy validation/published --error-band-table > engine/accuracy/error_band_table.cpp\n"
        "#include \"engine/accuracy/error_band.h\"\n\n"
        "namespace hcpsim::accuracy {\n\n"
        "const std::vector<ErrorBand>& error_band_table() {\n"
        "  // {low_fraction, high_fraction, case_class, holdout_cases}\n"
        "  static const std::vector<ErrorBand> table{\n";
  char buf[160];
  for (const auto& b : bands) {
    std::snprintf(buf, sizeof buf, "      {%.6f, %.6f, \"%s\", %d},\n", b.low_fraction, b.high_fraction,
                  b.case_class.c_str(), b.holdout_cases);
    os << buf;
  }
  os << "  };\n  return table;\n}\n\n}  // namespace hcpsim::accuracy\n";
  return os.str();
}

std::string describe(const ErrorBand& b) {
  return signed_percent(b.low_fraction) + " .. " + signed_percent(b.high_fraction) + " (" + b.case_class + ", " +
         std::to_string(b.holdout_cases) + " holdout case" + (b.holdout_cases == 1 ? "" : "s") + ")";
}

}  // namespace hcpsim::accuracy
