// The planning views on their models: the summary shows the report's figures with their
// definitions and paints the memory bar; the plan panel fills its table, chart and comparison.
#include <gtest/gtest.h>

#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTabWidget>

#include "engine/app/plan_run.h"
#include "engine/app/prediction.h"
#include "gui/models/figure_definitions.h"
#include "gui/views/plan_panel.h"
#include "gui/views/summary_view.h"
#include "view_test_helpers.h"

using namespace hcpsim;
using namespace hcpsim::gui;

namespace {

Scenario small_scenario() {
  Scenario s;
  s.name = "gui-plan-test";
  s.model.num_layers = 8;
  s.model.hidden_size = 4096;
  s.model.ffn_hidden_size = 14336;
  s.model.num_attention_heads = 32;
  s.model.num_query_groups = 8;
  s.model.kv_channels = 128;
  s.model.seq_length = 16384;
  s.model.context_parallel_size = 4;
  s.model.pipeline_model_parallel_size = 2;
  s.train.global_batch_size = 4;
  s.cluster.nodes = 1;
  s.cluster.gpus_per_node = 8;
  s.simulation.backend = "analytic";
  return s;
}

TEST(SummaryView, ShowsTheReportsFiguresWithDefinitions) {
  const Scenario s = small_scenario();
  SimulateOptions o;
  o.keep_events = false;
  const Report r = app::predict(s, "analytic", o).report;
  ASSERT_TRUE(r.step);
  SummaryView v;
  v.set_summary(summarize(r));
  EXPECT_EQ(v.figure_text("step.time_s"), format_seconds(r.step->time_s));
  EXPECT_EQ(v.figure_text("step.pipeline_bubble_fraction"),
            QString::number(100 * r.step->pipeline_bubble_fraction, 'f', 1) + " %");
  auto* label = v.findChild<QLabel*>("summary.step.mfu");
  ASSERT_NE(label, nullptr);
  EXPECT_EQ(label->toolTip(), figure_tooltip("step.mfu"));
  EXPECT_FALSE(v.figure_text("exposed.p2p_s").isEmpty());   // pp 2: a P2P transfer
}

TEST(SummaryView, ScreenshotPaintsTheMemoryBar) {
  QTemporaryDir dir;
  const Scenario s = small_scenario();
  ScreenshotRequest r;
  r.view = "summary";
  r.backend = "analytic";
  r.size = QSize(1000, 700);
  const QImage img = shoot(r, &s, dir);
  // weights (first item) and activations (fourth) as bar segments
  EXPECT_GT(count_color(img, group_index_color(0)), 200);
  EXPECT_GT(count_color(img, group_index_color(3)), 200);
}

TEST(PlanPanel, FillsTableChartAndComparison) {
  const Scenario s = small_scenario();
  planning::PlanOptions o;
  o.top = 50;
  o.search = planning::PlanSearch::layouts_only();
  planning::PlanOutcome out = app::plan_layouts(s, o);
  ASSERT_GE(out.best.size(), 2u);
  PlanPanel p;
  p.set_outcome(out, 80);
  EXPECT_EQ(p.model()->rowCount(), static_cast<int>(out.best.size()));
  EXPECT_TRUE(p.status_text().contains(QString::number(out.enumerated))) << p.status_text().toStdString();
  p.select_row(0);
  p.pin(0);
  p.select_row(1);
  p.pin(1);
  ASSERT_GT(p.compare_table()->rowCount(), 10);
  EXPECT_EQ(p.compare_table()->item(0, 0)->text(), "layout");
  EXPECT_EQ(p.compare_table()->item(0, 1)->text().toStdString(), out.best[0].candidate.label());
  EXPECT_EQ(p.compare_table()->item(0, 2)->text().toStdString(), out.best[1].candidate.label());
  EXPECT_EQ(p.details()->currentWidget(), p.compare_table());
}

TEST(PlanPanel, RunsInTheBackgroundAndCancels) {
  auto s = std::make_shared<const Scenario>(small_scenario());
  PlanPanel p;
  p.set_scenario(s);
  QSignalSpy done(&p, &PlanPanel::run_finished);
  ASSERT_TRUE(p.start());
  EXPECT_TRUE(p.running());
  EXPECT_FALSE(p.start());   // one at a time
  p.cancel();
  ASSERT_TRUE(done.wait(60000));
  EXPECT_EQ(done.at(0).at(0).toString(), "plan cancelled");
  EXPECT_FALSE(p.running());
}

}  // namespace
