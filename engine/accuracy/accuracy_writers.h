#pragma once
// Writers of the backtest report. Text: one row per case (measured, predicted, signed error), the
// fit and holdout summaries, then the order check of each group. JSON: {"cases": [...], "fit": {...},
// "holdout": {...}, "groups": [...], "bounds": {...}} (docs/accuracy.md).
#include <string>
#include <vector>

#include "engine/accuracy/accuracy_report.h"

namespace hcpsim::accuracy {

// `violations` is bound_violations() of the report under `bounds`.
std::string accuracy_to_text(const AccuracyReport& r, const AccuracyBounds& bounds,
                             const std::vector<std::string>& violations);
std::string accuracy_to_json(const AccuracyReport& r, const AccuracyBounds& bounds,
                             const std::vector<std::string>& violations);

}  // namespace hcpsim::accuracy
