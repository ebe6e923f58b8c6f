#pragma once
// Predicted-vs-measured chart of a backtest (no Qt here): log-log scatter, one series for fit and
// one for holdout cases, and the y = x line. cli/plot_chart renders it with Qt Charts.
#include "engine/accuracy/accuracy_report.h"
#include "engine/planning/sweep_chart.h"

namespace hcpsim::accuracy {

// Each case is one point (measured, predicted) in its metric's unit; a point on y = x is exact.
// Series: "fit", "holdout" (those with cases), then "y = x" across the range of all points.
planning::ChartData make_accuracy_chart(const AccuracyReport& r, const std::string& title);

}  // namespace hcpsim::accuracy
