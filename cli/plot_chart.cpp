#include "cli/plot_chart.h"

#include <stdexcept>

#ifdef HCPSIM_HAVE_QT_CHARTS
#include <QApplication>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QPen>
#include <QColor>
#include <QPixmap>
#include <QScatterSeries>
#include <QSvgGenerator>
#include <QValueAxis>
#include <cmath>
#include <cstdlib>
#include <memory>
#endif

namespace hcpsim::cli {

#ifdef HCPSIM_HAVE_QT_CHARTS

bool chart_rendering_available() { return true; }

namespace {

bool ends_with(const std::string& s, const std::string& suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

}  // namespace

void render_chart(const planning::ChartData& chart, const std::string& path) {
  const bool svg = ends_with(path, ".svg");
  if (!svg && !ends_with(path, ".png"))
    throw std::runtime_error("--plot " + path + ": the file name must end in .png or .svg");
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 0);
  std::unique_ptr<QApplication> app;
  if (!QApplication::instance()) {
    static int argc = 1;
    static char name[] = "hcpsim";
    static char* argv[] = {name, nullptr};
    app = std::make_unique<QApplication>(argc, argv);
  }
  constexpr int kWidth = 1000, kHeight = 640;
  auto* qchart = new QChart();
  qchart->setTitle(QString::fromStdString(chart.title));
  qchart->legend()->setAlignment(Qt::AlignRight);
  double y_lo = INFINITY, y_hi = -INFINITY, x_lo = INFINITY, x_hi = -INFINITY;
  for (const auto& s : chart.series) {
    QXYSeries* line = nullptr;
    QScatterSeries* scatter = nullptr;
    if (s.points_only) {
      scatter = new QScatterSeries();
      scatter->setMarkerSize(9);
      line = scatter;
    } else {
      line = new QLineSeries();
    }
    line->setName(QString::fromStdString(s.name));
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      line->append(s.x[i], s.y[i]);
      y_lo = std::min(y_lo, s.y[i]);
      y_hi = std::max(y_hi, s.y[i]);
      x_lo = std::min(x_lo, s.x[i]);
      x_hi = std::max(x_hi, s.x[i]);
    }
    // Qt's default theme repeats after 5 series; give each series its own colour.
    static const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                     "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    const QColor colour(kPalette[qchart->series().size() % 10]);
    if (scatter != nullptr) {
      scatter->setColor(colour);
      scatter->setBorderColor(colour);
    } else {
      line->setPointsVisible(true);
      QPen pen(colour);
      pen.setWidth(2);
      line->setPen(pen);
    }
    qchart->addSeries(line);
  }
  QAbstractAxis* x_axis = nullptr;
  if (chart.log10_x) {
    auto* ax = new QLogValueAxis();
    ax->setBase(10);
    ax->setLabelFormat("%g");
    ax->setMinorTickCount(-1);
    ax->setRange(x_lo / 1.5, x_hi * 1.5);
    x_axis = ax;
  } else if (chart.log2_x) {
    auto* ax = new QLogValueAxis();
    ax->setBase(2);
    ax->setLabelFormat("%g");
    ax->setRange(x_lo / 1.2, x_hi * 1.2);
    x_axis = ax;
  } else if (chart.numeric_x) {
    auto* ax = new QValueAxis();
    ax->setLabelFormat("%g");
    if (x_lo < x_hi) ax->setRange(x_lo, x_hi);
    x_axis = ax;
  } else {
    auto* ax = new QCategoryAxis();
    for (std::size_t i = 0; i < chart.categories.size(); ++i)
      ax->append(QString::fromStdString(chart.categories[i]), static_cast<double>(i) + 0.5);
    ax->setRange(-0.5, static_cast<double>(chart.categories.size()) - 0.5);
    ax->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    x_axis = ax;
  }
  x_axis->setTitleText(QString::fromStdString(chart.x_label));
  QAbstractAxis* y_axis = nullptr;
  if (chart.log10_y) {
    auto* ay = new QLogValueAxis();
    ay->setBase(10);
    ay->setLabelFormat("%g");
    ay->setMinorTickCount(-1);
    if (y_lo <= y_hi) ay->setRange(y_lo / 1.5, y_hi * 1.5);
    y_axis = ay;
  } else {
    auto* ay = new QValueAxis();
    ay->setLabelFormat("%g");
    if (y_lo <= y_hi) ay->setRange(std::min(0.0, y_lo), y_hi * 1.05 + (y_hi == 0 ? 1 : 0));
    y_axis = ay;
  }
  y_axis->setTitleText(QString::fromStdString(chart.y_label));
  qchart->addAxis(x_axis, Qt::AlignBottom);
  qchart->addAxis(y_axis, Qt::AlignLeft);
  for (QAbstractSeries* s : qchart->series()) {
    s->attachAxis(x_axis);
    s->attachAxis(y_axis);
  }
  QChartView view(qchart);   // takes ownership of the chart
  view.setRenderHint(QPainter::Antialiasing);
  view.resize(kWidth, kHeight);
  bool ok = false;
  if (svg) {
    QSvgGenerator gen;
    gen.setFileName(QString::fromStdString(path));
    gen.setSize(QSize(kWidth, kHeight));
    gen.setViewBox(QRect(0, 0, kWidth, kHeight));
    gen.setTitle(QString::fromStdString(chart.title));
    QPainter painter;
    ok = painter.begin(&gen);
    if (ok) {
      view.render(&painter);
      ok = painter.end();
    }
  } else {
    ok = view.grab().save(QString::fromStdString(path), "PNG");
  }
  if (!ok) throw std::runtime_error("--plot " + path + ": cannot write the chart file");
}

#else

bool chart_rendering_available() { return false; }

void render_chart(const planning::ChartData&, const std::string& path) {
  throw std::runtime_error("--plot " + path +
                           ": this hcpsim was built without Qt6 Charts (the GUI); reconfigure with "
                           "-DHCPSIM_WITH_GUI=ON and the Qt6 Charts/Svg packages, or use --out FILE.csv "
                           "and plot it elsewhere");
}

#endif

}  // namespace hcpsim::cli
