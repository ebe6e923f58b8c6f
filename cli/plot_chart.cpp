#include "cli/plot_chart.h"

#include <stdexcept>

#ifdef HCPSIM_HAVE_QT_CHARTS
#include <QApplication>
#include <QChartView>
#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>
#include <cstdlib>
#include <memory>

#include "gui/charts/sweep_chart_builder.h"
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
  QChart* qchart = gui::build_sweep_chart(chart);
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
