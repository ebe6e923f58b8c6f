#include "engine/accuracy/accuracy_chart.h"

#include <algorithm>
#include <limits>

namespace hcpsim::accuracy {

planning::ChartData make_accuracy_chart(const AccuracyReport& r, const std::string& title) {
  planning::ChartData c;
  c.title = title;
  c.x_label = "measured (each case in its metric's unit)";
  c.y_label = "predicted (same unit)";
  c.log10_x = c.log10_y = true;
  planning::ChartSeries fit{"fit", {}, {}, true}, holdout{"holdout", {}, {}, true};
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto& cr : r.cases) {
    auto& s = cr.source->role == CaseRole::Fit ? fit : holdout;
    s.x.push_back(cr.measured);
    s.y.push_back(cr.predicted);
    lo = std::min({lo, cr.measured, cr.predicted});
    hi = std::max({hi, cr.measured, cr.predicted});
  }
  if (!fit.x.empty()) c.series.push_back(std::move(fit));
  if (!holdout.x.empty()) c.series.push_back(std::move(holdout));
  if (hi > 0) c.series.push_back({"y = x", {lo, hi}, {lo, hi}, false});
  return c;
}

}  // namespace hcpsim::accuracy
