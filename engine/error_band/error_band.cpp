#include "engine/error_band/error_band.h"

#include <cstdio>

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

std::string precision_of(const Scenario& s) { return s.fp8_enabled() ? "fp8" : "bf16"; }

std::string level_of_class(const std::string& case_class) { return case_class.substr(0, case_class.find('/')); }

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

std::string describe(const ErrorBand& b) {
  return signed_percent(b.low_fraction) + " .. " + signed_percent(b.high_fraction) + " (" + b.case_class + ", " +
         std::to_string(b.holdout_cases) + " holdout case" + (b.holdout_cases == 1 ? "" : "s") + ")";
}

}  // namespace hcpsim::accuracy
