#pragma once
// Charts (Qt Charts): a sweep table (y against x, one line per series, e.g. step time vs cp per
// cp_comm_type) and predicted vs measured task durations (one scatter per task kind, y = x line).
#include <QChartView>

#include "engine/planning/sweep_chart.h"
#include "gui/charts/csv_table.h"
#include "gui/models/timeline_trace.h"

namespace hcpsim::gui {

class ChartView : public QChartView {
  Q_OBJECT
 public:
  explicit ChartView(QWidget* parent = nullptr);
  // Lines from a CSV table; returns the number of series drawn.
  int show_sweep(const CsvTable& t, const ChartColumns& c, const QString& title);
  // Lines of chart data (a sweep's results); returns the number of series drawn.
  int show_chart(const planning::ChartData& data);
  // Scatter of matched task durations (microseconds); returns the number of matched tasks.
  int show_predicted_vs_measured(const TimelineTrace& predicted, const TimelineTrace& measured);
  QSize sizeHint() const override { return {900, 560}; }
};

}  // namespace hcpsim::gui
