#include "engine/planning/sweep_chart.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>

namespace hcpsim::planning {
namespace {

bool parse_number(const std::string& s, double& v) {
  try {
    std::size_t used = 0;
    v = std::stod(s, &used);
    return used == s.size();
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

bool use_log2_axis(double lo, double hi) { return lo > 0 && hi / lo >= 8; }

ChartData make_chart(const std::vector<PointResult>& results, const std::vector<std::string>& columns,
                     const std::string& metric, const std::string& title) {
  if (columns.empty()) throw std::invalid_argument("--plot needs at least one varied axis");
  (void)metric_value(PointResult{}, metric);   // throws on an unknown metric
  ChartData c;
  c.title = title;
  c.x_label = columns[0];
  c.y_label = metric;
  std::vector<const PointResult*> drawn;
  for (const auto& r : results)
    if (r.status == PointStatus::Ok && !r.labels.empty() && std::isfinite(metric_value(r, metric)))
      drawn.push_back(&r);
  double lo = INFINITY, hi = -INFINITY;
  for (const auto* r : drawn) {
    double v = 0;
    if (!parse_number(r->labels[0], v)) c.numeric_x = false;
    else { lo = std::min(lo, v); hi = std::max(hi, v); }
    if (std::find(c.categories.begin(), c.categories.end(), r->labels[0]) == c.categories.end())
      c.categories.push_back(r->labels[0]);
  }
  c.log2_x = c.numeric_x && !drawn.empty() && use_log2_axis(lo, hi);
  std::map<std::string, std::size_t> index;
  for (const auto* r : drawn) {
    std::string name;
    for (std::size_t i = 1; i < r->labels.size(); ++i) name += (i > 1 ? " " : "") + r->labels[i];
    if (name.empty()) name = metric;
    auto it = index.find(name);
    if (it == index.end()) {
      it = index.emplace(name, c.series.size()).first;
      c.series.push_back({name, {}, {}});
    }
    double x = 0;
    if (c.numeric_x) parse_number(r->labels[0], x);
    else x = static_cast<double>(std::find(c.categories.begin(), c.categories.end(), r->labels[0]) - c.categories.begin());
    c.series[it->second].x.push_back(x);
    c.series[it->second].y.push_back(metric_value(*r, metric));
  }
  for (auto& s : c.series) {
    std::vector<std::size_t> order(s.x.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&s](std::size_t a, std::size_t b) { return s.x[a] < s.x[b]; });
    ChartSeries sorted{s.name, {}, {}};
    for (std::size_t i : order) {
      sorted.x.push_back(s.x[i]);
      sorted.y.push_back(s.y[i]);
    }
    s = std::move(sorted);
  }
  return c;
}

}  // namespace hcpsim::planning
