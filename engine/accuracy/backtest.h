#pragma once
// Predicting a list of cases: each case's prediction and class, and the errors of the cases that
// could not be predicted (each a CaseError message naming the file and field).
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "engine/accuracy/accuracy_report.h"
#include "engine/accuracy/case_prediction.h"

namespace hcpsim::accuracy {

struct BacktestRun {
  std::vector<CaseResult> results;      // the predicted cases, in input order (error not yet filled)
  std::vector<std::string> failures;    // one message per case that could not be predicted
};

// `before_each(i, case)` is called before case i is predicted (progress lines).
BacktestRun predict_cases(const std::vector<const AccuracyCase*>& cases, const BackendRegistry& backends,
                          const PredictOptions& options,
                          const std::function<void(std::size_t, const AccuracyCase&)>& before_each = {});

}  // namespace hcpsim::accuracy
