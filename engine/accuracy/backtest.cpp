#include "engine/accuracy/backtest.h"

#include "engine/accuracy/case_class.h"
#include "engine/accuracy/case_loader.h"

namespace hcpsim::accuracy {

BacktestRun predict_cases(const std::vector<const AccuracyCase*>& cases, const BackendRegistry& backends,
                          const PredictOptions& options,
                          const std::function<void(std::size_t, const AccuracyCase&)>& before_each) {
  BacktestRun run;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const AccuracyCase& c = *cases[i];
    if (before_each) before_each(i, c);
    try {
      CaseResult r{&c, c.measured, predict_case(c, backends, options), 0};
      r.case_class = case_class_of(c, options);
      run.results.push_back(std::move(r));
    } catch (const CaseError& e) {
      run.failures.push_back(e.what());
    }
  }
  return run;
}

}  // namespace hcpsim::accuracy
