#include "gui/charts/sweep_chart_builder.h"

#include <QCategoryAxis>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "gui/charts/colors.h"

namespace hcpsim::gui {
namespace {

bool is_seconds(const std::string& label) { return label.size() > 2 && label.compare(label.size() - 2, 2, "_s") == 0; }

// A logarithmic axis over [lo, hi] widened by the factor `margin` at both ends (no range when there
// are no points: lo > hi); labels "%g", and automatic minor ticks between decades.
QLogValueAxis* log_axis(double base, double lo, double hi, double margin) {
  auto* axis = new QLogValueAxis;
  axis->setBase(base);
  axis->setLabelFormat("%g");
  if (base == 10) axis->setMinorTickCount(-1);
  if (lo <= hi) axis->setRange(lo / margin, hi * margin);
  return axis;
}

}  // namespace

QChart* build_sweep_chart(const planning::ChartData& data) {
  auto* chart = new QChart;
  chart->setTitle(QString::fromStdString(data.title));
  chart->setBackgroundBrush(background_color());
  chart->legend()->setAlignment(Qt::AlignRight);
  double x_lo = INFINITY, x_hi = -INFINITY, y_lo = INFINITY, y_hi = -INFINITY;
  for (const auto& s : data.series)
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      x_lo = std::min(x_lo, s.x[i]);
      x_hi = std::max(x_hi, s.x[i]);
      y_lo = std::min(y_lo, s.y[i]);
      y_hi = std::max(y_hi, s.y[i]);
    }
  const bool ms = !data.log10_y && is_seconds(data.y_label) && y_hi > 0 && y_hi < 1;
  const double y_scale = ms ? 1e3 : 1.0;

  QAbstractAxis* x_axis = nullptr;
  if (data.log10_x) {
    x_axis = log_axis(10, x_lo, x_hi, 1.5);
  } else if (data.log2_x) {
    x_axis = log_axis(2, x_lo, x_hi, 1.25);
  } else if (data.numeric_x) {
    auto* ax = new QValueAxis;
    ax->setLabelFormat("%g");
    if (x_lo <= x_hi) ax->setRange(x_lo, x_hi);
    ax->applyNiceNumbers();
    x_axis = ax;
  } else {
    auto* ax = new QCategoryAxis;
    for (std::size_t i = 0; i < data.categories.size(); ++i)
      ax->append(QString::fromStdString(data.categories[i]), static_cast<double>(i) + 0.5);
    ax->setRange(-0.5, static_cast<double>(data.categories.size()) - 0.5);
    ax->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    x_axis = ax;
  }
  x_axis->setTitleText(QString::fromStdString(data.x_label));
  const QString y_name = QString::fromStdString(data.y_label);
  QAbstractAxis* y_axis = nullptr;
  if (data.log10_y) {
    y_axis = log_axis(10, y_lo, y_hi, 1.5);
  } else {
    auto* ay = new QValueAxis;
    ay->setLabelFormat("%g");
    if (y_lo <= y_hi) ay->setRange(std::min(0.0, y_lo * y_scale), y_hi * y_scale * 1.1 + (y_hi == 0 ? 1 : 0));
    ay->applyNiceNumbers();
    y_axis = ay;
  }
  y_axis->setTitleText(ms ? y_name.left(y_name.size() - 2) + " (ms)" : y_name);
  chart->addAxis(x_axis, Qt::AlignBottom);
  chart->addAxis(y_axis, Qt::AlignLeft);
  int n = 0;
  for (const auto& s : data.series) {
    const QColor colour = group_index_color(n * 3 + 1).darker(115);
    QXYSeries* line = nullptr;
    if (s.points_only) {   // scatter: markers only (predicted-vs-measured charts)
      auto* scatter = new QScatterSeries;
      scatter->setMarkerSize(9);
      scatter->setColor(colour);
      scatter->setBorderColor(colour);
      line = scatter;
    } else {
      line = new QLineSeries;
      line->setPointsVisible(true);
      line->setPen(QPen(colour, 2.5));
    }
    line->setName(QString::fromStdString(s.name));
    for (std::size_t i = 0; i < s.x.size(); ++i) line->append(s.x[i], s.y[i] * y_scale);
    chart->addSeries(line);
    line->attachAxis(x_axis);
    line->attachAxis(y_axis);
    ++n;
  }
  return chart;
}

planning::ChartData chart_data_from_table(const CsvTable& t, const ChartColumns& c, const QString& title) {
  planning::ChartData d;
  d.title = title.toStdString();
  d.x_label = c.x >= 0 ? t.header[c.x].toStdString() : "x";
  d.y_label = c.y >= 0 ? t.header[c.y].toStdString() : "y";
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& [name, pts] : chart_series(t, c)) {
    planning::ChartSeries s;
    s.name = name.toStdString();
    for (const QPointF& p : pts) {
      s.x.push_back(p.x());
      s.y.push_back(p.y());
      lo = std::min(lo, p.x());
      hi = std::max(hi, p.x());
    }
    d.series.push_back(std::move(s));
  }
  d.log2_x = planning::use_log2_axis(lo, hi);
  return d;
}

}  // namespace hcpsim::gui
