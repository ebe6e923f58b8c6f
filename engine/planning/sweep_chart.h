#pragma once
// Chart data of a sweep (no Qt here): the metric against the first axis, one series per value of
// the other axes. cli/plot_chart renders it with Qt Charts.
#include <string>
#include <vector>

#include "engine/planning/sweep_result.h"

namespace hcpsim::planning {

struct ChartSeries {
  std::string name;
  std::vector<double> x;        // numeric first-axis value, or category index when !numeric_x
  std::vector<double> y;        // metric value
  bool points_only = false;     // scatter: markers without a connecting line
};

struct ChartData {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool numeric_x = true;        // every first-axis label parses as a number
  bool log2_x = false;          // numeric and use_log2_axis(lowest x, highest x)
  bool log10_x = false;         // decade axes (predicted-vs-measured charts); values must be > 0
  bool log10_y = false;
  std::vector<std::string> categories;   // first-axis labels in first-seen order (when !numeric_x)
  std::vector<ChartSeries> series;       // sorted by x within each series
};

// The log2 axis rule shared by every chart: positive values spanning a factor >= 8 (cp 2..64).
bool use_log2_axis(double lo, double hi);

// Only ok points with a finite metric are drawn. Throws std::invalid_argument when there is no axis
// or the metric is unknown.
ChartData make_chart(const std::vector<PointResult>& results, const std::vector<std::string>& columns,
                     const std::string& metric, const std::string& title);

}  // namespace hcpsim::planning
