#pragma once
// The backtest's numbers: per case measured, predicted and signed error; mean and max absolute
// error separately for fit and holdout cases; and for every `group`, whether the predicted order of
// its cases equals the measured order.
#include <optional>
#include <string>
#include <vector>

#include "engine/accuracy/accuracy_case.h"

namespace hcpsim::accuracy {

struct CaseResult {
  CaseResult() = default;
  CaseResult(const AccuracyCase* c, double measured_value, double predicted_value, double signed_error = 0)
      : source(c), measured(measured_value), predicted(predicted_value), error(signed_error) {}

  const AccuracyCase* source = nullptr;   // the case (owned by the caller)
  double measured = 0;                    // in the metric's unit
  double predicted = 0;
  double error = 0;                       // signed: predicted / measured - 1
  std::string case_class;                 // "whole_step/fp8" (case_class.h); "" = not classified
  // measured time / predicted time - 1, the time being the inverse of a rate metric (tokens/s,
  // TFLOP/s, bandwidth): the error as error_band.h states it. Filled with `error`.
  double time_fraction = 0;
};

struct RoleSummary {
  std::size_t count = 0;
  double mean_abs_error = 0;              // 0 when count == 0
  double max_abs_error = 0;
  std::string worst_case;                 // name of the case with max_abs_error
};

struct GroupOrder {
  std::string name;
  std::string metric;
  std::vector<std::string> measured_order;    // case names, smallest metric value first
  std::vector<std::string> predicted_order;
  // Pairs with different measured values that the prediction orders the other way or ties.
  std::size_t discordant_pairs = 0;
  bool matches = true;                        // discordant_pairs == 0
};

// The cases of one class ("whole_step/fp8") or of one level across precisions ("whole_step").
struct ClassSummary {
  std::string name;
  RoleSummary fit, holdout;
  // Range of time_fraction over the holdout cases (0 when there are none): the class's error band.
  double holdout_low_fraction = 0;
  double holdout_high_fraction = 0;
};

struct AccuracyReport {
  std::vector<CaseResult> cases;          // in input order
  RoleSummary fit, holdout;
  std::vector<GroupOrder> groups;         // by group name
  std::vector<ClassSummary> classes;      // every class and every level of the classified cases, by name
};

// Signed relative error predicted / measured - 1. Precondition: measured > 0.
double signed_error(double predicted, double measured);

// Fills the error of every result and computes the summaries and group orders.
AccuracyReport make_accuracy_report(std::vector<CaseResult> results);

// Bounds of `hcpsim accuracy`: holdout mean and max absolute error (nullopt: not checked).
struct AccuracyBounds {
  std::optional<double> max_mean_error;
  std::optional<double> max_error;
  bool require_order = false;             // every group's order must match
};

// Human-readable reasons the report breaks the bounds; empty when it meets them.
std::vector<std::string> bound_violations(const AccuracyReport& r, const AccuracyBounds& b);

}  // namespace hcpsim::accuracy
