// hcpsim-gui: the interactive window, or `--screenshot VIEW OUT FILE [k=v...]` to render one view
// offscreen (exit 0 ok, 1 bad input, 2 usage error).
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "engine/app/help_footer.h"
#include "engine/core/diagnostics.h"
#include "engine/app/scenario_input.h"
#include "engine/scenario/loader.h"
#include "gui/app/main_window.h"
#include "gui/views/screenshot.h"

namespace {

int usage(const QString& msg) {
  std::fprintf(stderr, "hcpsim-gui: %s\n(run hcpsim-gui --help for usage)\n", qPrintable(msg));
  return 2;
}

// The command line: the description with examples, and every option.
void add_options(QCommandLineParser& cli) {
  cli.setApplicationDescription(QString::fromStdString(hcpsim::app::format_help_footer(
      {.before = "hcpsim GUI: scenario editor, summary, plan, layout, ring-step, timeline and chart views.\n"
                 "`hcpsim-gui FILE` opens the window on a scenario; --screenshot renders one view and exits.",
       .examples = {{{"hcpsim-gui --screenshot layout layout.png scenarios/llama3-70b-128k-dgx-h100-hcp.yaml --color-by ring"}},
                    {{"hcpsim-gui --screenshot ring ring.png scenarios/llama3-70b-128k-dgx-h100-hcp.yaml --step 1"}},
                    {{"hcpsim-gui --screenshot timeline tl.png scenarios/llama3-8b-64k-dgx-h100-p2p.yaml"}, "analytic, in-process"},
                    {{"hcpsim-gui --screenshot summary summary.png scenarios/llama3-8b-64k-dgx-h100-p2p.yaml"}},
                    {{"hcpsim-gui --screenshot plan plan.png scenarios/llama3-8b-64k-dgx-h100-p2p.yaml --gpus 16"}},
                    {{"hcpsim simulate scenarios/llama3-8b-64k-dgx-h100-p2p.yaml --backend analytic --trace pred.json"}},
                    {{"hcpsim-gui --screenshot timeline tl.svg --trace pred.json --measured pred.json"}},
                    {{"hcpsim sweep scenarios/llama3-8b-64k-dgx-h100-p2p.yaml --vary model.context_parallel_size=2,4,8 --out sweep.csv"}},
                    {{"hcpsim-gui --screenshot chart chart.png --csv sweep.csv --x model.context_parallel_size --y step_s"}}}})));
  cli.addHelpOption();
  cli.addOption({"screenshot", "Render VIEW (layout, ring, timeline, chart, summary, plan, step-timeline) offscreen to OUT (.png/.svg) and exit.", "VIEW"});
  cli.addOption({"trace", "Predicted trace (Chrome JSON).", "FILE"});
  cli.addOption({"measured", "Measured trace to overlay / compare.", "FILE"});
  cli.addOption({"csv", "Sweep table for the chart.", "FILE"});
  cli.addOption({"x", "Chart x column.", "NAME"});
  cli.addOption({"y", "Chart y column.", "NAME"});
  cli.addOption({"series", "Chart series column.", "NAME"});
  cli.addOption({"color-by", "Layout colouring: tp, cp, dp, pp, a2a, ring.", "KIND", "cp"});
  cli.addOption({"select", "Layout: highlight the groups of this rank.", "RANK"});
  cli.addOption({"step", "Ring view: step to show (default: last).", "N"});
  cli.addOption({"backend", "Summary, step-timeline: the prediction's backend (default: the scenario's simulation.backend).", "NAME"});
  cli.addOption({"gpus", "Plan: GPUs to plan for (default: the scenario's world size).", "N"});
  cli.addOption({"size", "Screenshot size WxH in pixels.", "WxH", "1200x800"});
  cli.addPositionalArgument("args", "[OUT] [FILE] [key.path=value ...]");
}

// The interactive window on FILE (with overrides) and the traces / table the options name.
int run_window(const QCommandLineParser& cli, const QString& file, const QStringList& overrides) {
  hcpsim::gui::MainWindow w;
  if (!file.isEmpty()) w.open_path(file, overrides);
  if (!cli.value("trace").isEmpty()) w.open_trace(cli.value("trace"), false);
  if (!cli.value("measured").isEmpty()) w.open_trace(cli.value("measured"), true);
  if (!cli.value("csv").isEmpty()) w.open_csv(cli.value("csv"));
  w.show();
  return QApplication::exec();
}

// The screenshot request the options describe; "" or the usage error.
QString read_request(const QCommandLineParser& cli, hcpsim::gui::ScreenshotRequest& r) {
  r.view = cli.value("screenshot");
  r.trace = cli.value("trace");
  r.measured = cli.value("measured");
  r.csv = cli.value("csv");
  r.x = cli.value("x");
  r.y = cli.value("y");
  r.series = cli.value("series");
  r.color_by = cli.value("color-by");
  r.backend = cli.value("backend");
  bool ok = true;
  if (cli.isSet("gpus")) {
    r.gpus = cli.value("gpus").toInt(&ok);
    if (!ok || r.gpus < 1) return "--gpus needs a number of GPUs >= 1";
  }
  if (cli.isSet("select")) {
    r.select_rank = cli.value("select").toInt(&ok);
    if (!ok || r.select_rank < 0) return "--select needs a rank >= 0";
  }
  if (cli.isSet("step")) {
    r.step = cli.value("step").toInt(&ok);
    if (!ok || r.step < 0) return "--step needs a step >= 0";
  }
  const QStringList wh = cli.value("size").split('x');
  if (wh.size() != 2 || wh[0].toInt() < 100 || wh[1].toInt() < 100) return "--size needs WxH, both >= 100";
  r.size = QSize(wh[0].toInt(), wh[1].toInt());
  return {};
}

// FILE with its overrides through the application layer; nullptr (the diagnostics printed) when it
// cannot be used.
std::unique_ptr<hcpsim::Scenario> load(const QString& file, const QStringList& overrides) {
  try {
    hcpsim::app::ScenarioInput in{.file = file.toStdString(), .overrides = {}, .backend = {}, .check_backend = true};
    for (const QString& o : overrides) in.overrides.push_back(o.toStdString());
    hcpsim::app::LoadedScenario loaded = hcpsim::app::load_scenario(in);
    if (loaded.usable()) return std::make_unique<hcpsim::Scenario>(std::move(loaded.scenario));
    std::fprintf(stderr, "%s", hcpsim::format_diagnostics(loaded.diagnostics, file.toStdString()).c_str());
  } catch (const hcpsim::ScenarioError& e) {
    std::fprintf(stderr, "%s", hcpsim::format_diagnostics(e.diagnostics(), e.file()).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hcpsim-gui: %s\n", e.what());
  }
  return nullptr;
}

// --screenshot VIEW OUT [FILE]: renders one view offscreen; 0 written, 1 bad input, 2 usage error.
int run_screenshot(const QCommandLineParser& cli, const QString& out, const QString& file, const QStringList& overrides) {
  hcpsim::gui::ScreenshotRequest r;
  r.out = out;
  const QString bad = read_request(cli, r);
  if (!bad.isEmpty()) return usage(bad);
  std::unique_ptr<hcpsim::Scenario> scenario;
  if (!file.isEmpty() && !(scenario = load(file, overrides))) return 1;
  QString err;
  if (!hcpsim::gui::render_screenshot(r, scenario.get(), &err)) {
    std::fprintf(stderr, "hcpsim-gui: %s\n", qPrintable(err));
    return 1;
  }
  std::printf("wrote %s\n", qPrintable(r.out));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool shot = false;
  // Screenshots and --help need no display: use the offscreen platform when there is none.
  for (int i = 1; i < argc; ++i)
    shot = shot || std::strcmp(argv[i], "--screenshot") == 0 || std::strcmp(argv[i], "--help") == 0 ||
           std::strcmp(argv[i], "-h") == 0;
  if (shot && !std::getenv("QT_QPA_PLATFORM") && !std::getenv("DISPLAY")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  QApplication::setApplicationName("hcpsim-gui");
  QCommandLineParser cli;
  add_options(cli);
  if (!cli.parse(QApplication::arguments())) return usage(cli.errorText());
  if (cli.isSet("help")) {
    std::printf("%s", qPrintable(cli.helpText()));
    return 0;
  }
  QStringList pos = cli.positionalArguments();
  QString out;
  if (cli.isSet("screenshot")) {
    if (pos.isEmpty()) return usage("--screenshot VIEW needs OUT.png (or .svg)");
    out = pos.takeFirst();
  }
  QString file;
  QStringList overrides;
  for (const QString& a : pos) {
    if (a.contains('=') && !QFileInfo::exists(a)) overrides << a;
    else if (file.isEmpty()) file = a;
    else return usage("unexpected argument '" + a + "' (one FILE, then key.path=value overrides)");
  }
  return cli.isSet("screenshot") ? run_screenshot(cli, out, file, overrides) : run_window(cli, file, overrides);
}
