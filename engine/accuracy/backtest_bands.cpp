#include "engine/accuracy/backtest_bands.h"

#include <cstdio>
#include <sstream>

#include "engine/accuracy/accuracy_report.h"

namespace hcpsim::accuracy {

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
        "//   build/cli/hcpsim accuracy validation/published --error-band-table > engine/error_band/error_band_table.cpp\n"
        "#include \"engine/error_band/error_band.h\"\n\n"
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

}  // namespace hcpsim::accuracy
