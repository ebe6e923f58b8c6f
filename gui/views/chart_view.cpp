#include "gui/views/chart_view.h"

#include <QChart>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <map>

#include "gui/models/colors.h"

namespace hcpsim::gui {

ChartView::ChartView(QWidget* parent) : QChartView(parent) {
  setRenderHint(QPainter::Antialiasing);
  setMinimumSize(400, 300);
  setChart(new QChart);
}

int ChartView::show_sweep(const CsvTable& t, const ChartColumns& c, const QString& title) {
  auto* chart = new QChart;
  chart->setTitle(title);
  chart->setBackgroundBrush(background_color());
  const auto series = chart_series(t, c);
  double x0 = 1e300, x1 = -1e300, y1 = 0;
  for (const auto& [name, pts] : series)
    for (const auto& pt : pts) {
      x0 = std::min(x0, pt.x());
      x1 = std::max(x1, pt.x());
      y1 = std::max(y1, pt.y());
    }
  // Seconds columns below one second are shown in ms; x spanning a factor >= 4 on a log2 axis
  // (cp = 2, 4, 8, ...).
  const QString yname = c.y >= 0 ? t.header[c.y] : QStringLiteral("y");
  const bool ms = yname.endsWith("_s") && y1 > 0 && y1 < 1;
  const double yscale = ms ? 1e3 : 1.0;
  const bool log_x = x0 > 0 && x1 / x0 >= 4;
  QAbstractAxis* ax = nullptr;
  if (log_x) {
    auto* lx = new QLogValueAxis;
    lx->setBase(2);
    lx->setLabelFormat("%g");
    lx->setRange(x0 / 1.25, x1 * 1.25);
    ax = lx;
  } else {
    auto* vx = new QValueAxis;
    vx->setLabelFormat("%g");
    if (x1 >= x0) vx->setRange(x0, x1);
    vx->applyNiceNumbers();
    ax = vx;
  }
  ax->setTitleText(c.x >= 0 ? t.header[c.x] : QStringLiteral("x"));
  auto* ay = new QValueAxis;
  ay->setTitleText(ms ? yname.left(yname.size() - 2) + " (ms)" : yname);
  ay->setLabelFormat("%g");
  ay->setRange(0, y1 * yscale * 1.1 + 1e-15);
  ay->applyNiceNumbers();
  chart->addAxis(ax, Qt::AlignBottom);
  chart->addAxis(ay, Qt::AlignLeft);
  int n = 0;
  for (const auto& [name, pts] : series) {
    auto* line = new QLineSeries;
    line->setName(name);
    line->setPointsVisible(true);
    line->setPen(QPen(group_index_color(n * 3 + 1).darker(115), 2.5));
    for (const auto& pt : pts) line->append(pt.x(), pt.y() * yscale);
    chart->addSeries(line);
    line->attachAxis(ax);
    line->attachAxis(ay);
    ++n;
  }
  chart->legend()->setAlignment(Qt::AlignRight);
  QChart* old = this->chart();
  setChart(chart);
  delete old;
  return n;
}

int ChartView::show_predicted_vs_measured(const TimelineTrace& predicted, const TimelineTrace& measured) {
  auto* chart = new QChart;
  chart->setTitle(tr("Task durations: predicted vs measured (µs)"));
  chart->setBackgroundBrush(background_color());
  const auto matched = match_tasks(predicted, measured);
  auto* ax = new QValueAxis;
  auto* ay = new QValueAxis;
  ax->setTitleText(tr("predicted (µs)"));
  ay->setTitleText(tr("measured (µs)"));
  chart->addAxis(ax, Qt::AlignBottom);
  chart->addAxis(ay, Qt::AlignLeft);
  std::map<int, QScatterSeries*> by_kind;
  double hi = 0;
  for (const auto& m : matched) {
    const int k = m.has_kind ? static_cast<int>(m.kind) : -1;
    auto& s = by_kind[k];
    if (!s) {
      s = new QScatterSeries;
      s->setName(k >= 0 ? QString::fromLatin1(to_string(static_cast<TaskKind>(k))) : tr("other"));
      s->setColor(k >= 0 ? task_kind_color(static_cast<TaskKind>(k)) : Qt::gray);
      s->setMarkerSize(8);
    }
    s->append(m.predicted_s * 1e6, m.measured_s * 1e6);
    hi = std::max({hi, m.predicted_s * 1e6, m.measured_s * 1e6});
  }
  auto* diag = new QLineSeries;
  diag->setName(tr("measured = predicted"));
  diag->setPen(QPen(QColor(0x50, 0x50, 0x50), 1, Qt::DashLine));
  diag->append(0, 0);
  diag->append(hi * 1.05 + 1e-9, hi * 1.05 + 1e-9);
  chart->addSeries(diag);
  diag->attachAxis(ax);
  diag->attachAxis(ay);
  for (auto& [k, s] : by_kind) {
    chart->addSeries(s);
    s->attachAxis(ax);
    s->attachAxis(ay);
  }
  ax->setRange(0, hi * 1.05 + 1e-9);
  ay->setRange(0, hi * 1.05 + 1e-9);
  chart->legend()->setAlignment(Qt::AlignRight);
  QChart* old = this->chart();
  setChart(chart);
  delete old;
  return static_cast<int>(matched.size());
}

}  // namespace hcpsim::gui
