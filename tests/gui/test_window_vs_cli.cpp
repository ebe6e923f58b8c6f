// One source of truth, driven through the real window: load a scenario, edit cp and pp in the form,
// Run ▸ Simulate, read the summary's step time; it equals what `hcpsim simulate` reports for the
// same scenario and overrides.
#include <gtest/gtest.h>

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>

#include "engine/trace/trace.h"
#include "gui/app/main_window.h"
#include "gui/app/scenario_editor.h"
#include "gui/charts/csv_table.h"
#include "gui/models/summary_model.h"
#include "gui/models/sweep_table_model.h"
#include "gui/views/step_timeline_panel.h"
#include "gui/views/summary_view.h"
#include "gui/views/sweep_panel.h"
#include "gui/views/timeline_view.h"

using namespace hcpsim::gui;

namespace {

constexpr const char* kScenario = HCPSIM_SOURCE_DIR "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml";

QJsonObject cli_report(const QStringList& overrides, const QStringList& options = {}) {
  QProcess p;
  p.start(HCPSIM_CLI, QStringList{"simulate", kScenario} + overrides + QStringList{"--format", "json"} + options);
  EXPECT_TRUE(p.waitForFinished(120000));
  EXPECT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
  return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
}

TEST(WindowVsCli, EditedPipelineSizeGivesTheCliStepTime) {
  MainWindow w;
  ASSERT_TRUE(w.open_path(kScenario));
  auto* cp = w.editor()->findChild<QSpinBox*>("model.context_parallel_size");
  auto* pp = w.editor()->findChild<QSpinBox*>("model.pipeline_model_parallel_size");
  ASSERT_NE(cp, nullptr);
  ASSERT_NE(pp, nullptr);
  cp->setValue(4);   // 8 GPUs: tp 1 x cp 4 x pp 2
  pp->setValue(2);
  ASSERT_FALSE(w.editor()->diagnostics().has_errors());
  EXPECT_EQ(w.editor()->scenario()->pp(), 2);
  EXPECT_TRUE(w.editor()->yaml().contains("pipeline_model_parallel_size: 2"));
  EXPECT_TRUE(w.editor()->yaml().contains("# full recomputation"));   // the file's comments stay
  QSignalSpy done(&w, &MainWindow::prediction_finished);
  ASSERT_TRUE(w.run_simulate());
  ASSERT_TRUE(done.wait(120000));
  ASSERT_EQ(done.at(0).at(0).toString(), QString()) << done.at(0).at(0).toString().toStdString();
  const SummaryFigure* step = w.summary()->summary().find("step.time_s");
  ASSERT_NE(step, nullptr);

  const QJsonObject cli = cli_report({"model.context_parallel_size=4", "model.pipeline_model_parallel_size=2"});
  ASSERT_TRUE(cli.contains("step"));
  const double cli_step_s = cli["step"].toObject()["time_s"].toDouble();
  EXPECT_GT(cli_step_s, 0);
  EXPECT_DOUBLE_EQ(step->value, cli_step_s);
  EXPECT_EQ(w.summary()->figure_text("step.time_s"), format_seconds(cli_step_s));
  EXPECT_EQ(w.summary()->summary().backend.toStdString(), cli["backend"].toString().toStdString());
  EXPECT_DOUBLE_EQ(w.summary()->summary().find("step.tokens_per_s_per_gpu")->value,
                   cli["step"].toObject()["tokens_per_s_per_gpu"].toDouble());
  EXPECT_DOUBLE_EQ(w.summary()->summary().peak_bytes, cli["memory"].toObject()["peak_bytes_per_gpu"].toDouble());
  // The timeline draws the prediction's own events: they end at the report's makespan (the whole
  // simulated layer, not attention alone).
  double end_s = 0;
  for (const auto& e : w.timeline()->predicted().events) end_s = std::max(end_s, e.end_s);
  EXPECT_NEAR(end_s, cli["makespan_s"].toDouble(), 1e-12);
}

// The step timeline shows the events `hcpsim simulate --step-trace` writes.
TEST(WindowVsCli, StepTimelineIsTheCliStepTrace) {
  MainWindow w;
  ASSERT_TRUE(w.open_path(kScenario, {"model.context_parallel_size=4", "model.pipeline_model_parallel_size=2"}));
  QSignalSpy step(&w, &MainWindow::step_trace_finished);
  ASSERT_TRUE(w.run_simulate("analytic"));
  ASSERT_TRUE(step.wait(120000));
  ASSERT_EQ(step.at(0).at(0).toString(), QString()) << step.at(0).at(0).toString().toStdString();
  const hcpsim::Trace& gui = w.step_timeline()->trace();
  QTemporaryDir dir;
  const QString file = dir.filePath("step.json");
  (void)cli_report({"model.context_parallel_size=4", "model.pipeline_model_parallel_size=2"},
                   {"--backend", "analytic", "--step-trace", file});
  const hcpsim::Trace cli = hcpsim::read_chrome_trace(file.toStdString());
  ASSERT_EQ(gui.events.size(), cli.events.size());
  ASSERT_GT(gui.events.size(), 1000u);
  double gui_end = 0, cli_end = 0;
  for (const auto& e : gui.events) gui_end = std::max(gui_end, e.end_s);
  for (const auto& e : cli.events) cli_end = std::max(cli_end, e.end_s);
  EXPECT_NEAR(gui_end, cli_end, 1e-6);   // the file holds microseconds
  EXPECT_GT(gui_end, 1.0);               // a whole step of 8 micro-batches, seconds
}

// Run ▸ Sweep in the window (in this process) gives the rows `hcpsim sweep --format csv` prints.
TEST(WindowVsCli, SweepTabIsTheCliSweep) {
  const QStringList vary{"model.context_parallel_size=2,4,8", "model.cp_comm_type=p2p,a2a", "simulation.backend=analytic"};
  MainWindow w;
  QSignalSpy done(w.sweep(), &SweepPanel::run_finished);
  w.sweep()->set_file(kScenario);
  w.sweep()->set_vary(vary.join(' '));
  ASSERT_TRUE(w.sweep()->start());
  ASSERT_TRUE(done.wait(120000));
  ASSERT_EQ(done.at(0).at(0).toString(), QString()) << done.at(0).at(0).toString().toStdString();

  QStringList args{"sweep", kScenario, "--format", "csv", "-j", "1"};
  for (const QString& v : vary) args << "--vary" << v;
  QProcess p;
  p.start(HCPSIM_CLI, args);
  ASSERT_TRUE(p.waitForFinished(120000));
  ASSERT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
  const CsvTable cli = parse_csv(QString::fromUtf8(p.readAllStandardOutput()), "hcpsim sweep");
  const SweepTableModel& gui = *w.sweep()->model();
  ASSERT_EQ(static_cast<std::size_t>(gui.rowCount()), cli.rows.size());
  ASSERT_EQ(gui.rowCount(), 6);
  const int cli_cp = cli.column("model.context_parallel_size"), cli_comm = cli.column("model.cp_comm_type");
  int compared = 0;
  for (const QString& figure : {QStringLiteral("step_s"), QStringLiteral("tokens_per_s_per_gpu"),
                                QStringLiteral("memory_per_gpu_gib"), QStringLiteral("mfu")}) {
    ASSERT_GE(cli.column(figure), 0) << figure.toStdString();
    for (int r = 0; r < gui.rowCount(); ++r) {   // the CLI sorts by the metric: match rows by their axes
      const auto row = std::find_if(cli.rows.begin(), cli.rows.end(), [&](const QStringList& c) {
        return c[cli_cp] == gui.data(gui.index(r, gui.column("model.context_parallel_size"))).toString() &&
               c[cli_comm] == gui.data(gui.index(r, gui.column("model.cp_comm_type"))).toString();
      });
      ASSERT_NE(row, cli.rows.end()) << r;
      const double want = (*row)[cli.column(figure)].toDouble();
      EXPECT_NEAR(gui.data(gui.index(r, gui.column(figure)), Qt::UserRole).toDouble(), want, std::abs(want) * 1e-8)
          << figure.toStdString() << " row " << r;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 24);
}

}  // namespace
