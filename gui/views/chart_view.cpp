#include "gui/views/chart_view.h"

#include <QChart>
#include <QLegend>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
#include <map>

#include "gui/charts/colors.h"
#include "gui/charts/sweep_chart_builder.h"

namespace hcpsim::gui {

ChartView::ChartView(QWidget* parent) : QChartView(parent) {
  setRenderHint(QPainter::Antialiasing);
  setMinimumSize(400, 300);
  setChart(new QChart);
}

int ChartView::show_sweep(const CsvTable& t, const ChartColumns& c, const QString& title) {
  return show_chart(chart_data_from_table(t, c, title));
}

int ChartView::show_chart(const planning::ChartData& data) {
  QChart* old = this->chart();
  setChart(build_sweep_chart(data));
  delete old;
  return static_cast<int>(data.series.size());
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
