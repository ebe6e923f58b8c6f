#pragma once
// The error band of a prediction: how far measured runs of the same case class fell from hcpsim's
// predictions in the backtest's holdout cases (validation/published). A case class is a level
// (what a case measures: kernel, collective, attention, layer, prefill, whole_step) and, where it
// matters, the precision of the run (bf16, fp8): "whole_step/fp8". docs/accuracy.md "Error band".
//
// The band is the observed range of the holdout errors of the class, not a confidence interval:
// with n holdout cases, a new run may well fall outside it. It is read from a committed table
// (error_band_table.cpp), which `hcpsim accuracy --error-band-table` regenerates from the backtest
// (engine/accuracy/backtest_bands.h) and a test refuses when stale. This folder sits below the
// step, report, planning and application folders that show the band, and below the accuracy
// folder that computes it.
#include <optional>
#include <string>
#include <vector>

namespace hcpsim {
struct Scenario;
}

namespace hcpsim::accuracy {

// measured step time / predicted step time - 1 lay in [low_fraction, high_fraction] for every
// holdout case of `case_class` (for a rate metric such as tokens/s or TFLOP/s, the time is the
// inverse of the rate). Negative low_fraction: some run was faster than predicted.
struct ErrorBand {
  double low_fraction = 0;
  double high_fraction = 0;
  std::string case_class;     // e.g. "whole_step/fp8", or a level alone ("whole_step") for all precisions
  int holdout_cases = 0;      // the holdout cases the range was taken over

  // The range of a predicted time (any unit) that this band gives.
  double time_low(double predicted) const { return predicted * (1 + low_fraction); }
  double time_high(double predicted) const { return predicted * (1 + high_fraction); }
  // The range of a predicted rate (tokens/s, TFLOP/s): the inverse of the time's.
  double rate_low(double predicted) const { return predicted / (1 + high_fraction); }
  double rate_high(double predicted) const { return predicted / (1 + low_fraction); }
};

// A class needs at least this many holdout cases for a band; with fewer, the level-wide class (all
// precisions) is used, and with fewer there too, there is no band.
inline constexpr int kMinBandHoldoutCases = 3;

// "fp8" when the scenario's model.fp8 is set, else "bf16".
std::string precision_of(const Scenario& s);

// The level of a class name ("whole_step/fp8" -> "whole_step").
std::string level_of_class(const std::string& case_class);

// The class of what `hcpsim simulate` reports for `s`: "whole_step/<precision>" for a training step,
// "prefill/<precision>" for a prefill; precision "fp8" when model.fp8 is set, else "bf16".
std::string case_class_of(const Scenario& s);

// The band for what `hcpsim simulate` and `hcpsim plan` report for `s`, from the committed table;
// nullopt when neither its class nor its level has kMinBandHoldoutCases holdout cases.
std::optional<ErrorBand> error_band_for(const Scenario& s);

// The band of `case_class` (or of its level) in `table`, by the rule of error_band_for.
std::optional<ErrorBand> band_in(const std::vector<ErrorBand>& table, const std::string& case_class);

// The committed table (generated into error_band_table.cpp by `hcpsim accuracy validation/published
// --error-band-table`), every class and level with at least one holdout case, by class name.
const std::vector<ErrorBand>& error_band_table();

// "-12.3 % .. +4.5 % (whole_step/fp8, 8 holdout cases)"
std::string describe(const ErrorBand& b);

}  // namespace hcpsim::accuracy
