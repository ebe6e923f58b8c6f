// Views rendered offscreen: screenshots checked for size and content (colours that must appear,
// fraction of non-background pixels), clicks and tooltips through the real widgets.
#include <gtest/gtest.h>

#include <QApplication>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>

#include "gui/models/cp_sweep.h"
#include "gui/charts/colors.h"
#include "gui/views/layout_view.h"
#include "gui/views/ring_step_view.h"
#include "gui/views/screenshot.h"
#include "gui/views/step_panel.h"
#include "gui/views/timeline_view.h"
#include "view_test_helpers.h"

using namespace hcpsim;
using namespace hcpsim::gui;

namespace {

// 2 nodes x 8 GPUs, tp=2 cp=4 a2a+p2p [2,2], dp=2; Llama-like heads (32 q, 8 kv, d=128).
Scenario scenario() {
  Scenario s;
  s.name = "gui-test";
  s.model.num_layers = 2;
  s.model.hidden_size = 4096;
  s.model.num_attention_heads = 32;
  s.model.num_query_groups = 8;
  s.model.kv_channels = 128;
  s.model.seq_length = 16384;
  s.model.tensor_model_parallel_size = 2;
  s.model.context_parallel_size = 4;
  s.model.cp_comm_type = {CpCommType::A2AP2P};
  s.model.hierarchical_context_parallel_sizes = {2, 2};
  s.cluster.nodes = 2;
  s.cluster.gpus_per_node = 8;
  s.simulation.backend = "analytic";
  return s;
}

TEST(Screenshot, LayoutShowsEveryCpGroupColour) {
  QTemporaryDir dir;
  const Scenario s = scenario();
  ScreenshotRequest r;
  r.view = "layout";
  r.size = QSize(1000, 600);
  const QImage img = shoot(r, &s, dir);
  ASSERT_EQ(img.size(), QSize(1000, 600));
  // world 16 / cp 4 = 4 CP groups, each with its own colour, each on 4 GPU cells.
  for (int g = 0; g < 4; ++g) EXPECT_GT(count_color(img, group_index_color(g)), 400) << "CP group " << g;
  EXPECT_EQ(count_color(img, group_index_color(4)), 0);   // there is no fifth group
  EXPECT_GT(non_background_fraction(img), 0.2);
}

TEST(Screenshot, LayoutSelectionOutlinesGroups) {
  QTemporaryDir dir;
  const Scenario s = scenario();
  ScreenshotRequest r;
  r.view = "layout";
  r.size = QSize(1000, 600);
  r.color_by = "ring";
  const QImage plain = shoot(r, &s, dir);
  r.select_rank = 5;
  const QImage sel = shoot(r, &s, dir);
  EXPECT_EQ(count_color(plain, group_kind_color(GroupKind::HCP_A2A)), 0);
  EXPECT_GT(count_color(sel, group_kind_color(GroupKind::HCP_A2A)), 50);
  r.select_rank = 99;
  QString err;
  r.out = dir.filePath("x.png");
  EXPECT_FALSE(render_screenshot(r, &s, &err));
  EXPECT_TRUE(err.contains("0..15")) << err.toStdString();
}

TEST(LayoutView, ClickSelectsTheGpuUnderTheMouse) {
  LayoutView v;
  const Scenario s = scenario();
  v.resize(900, 600);
  v.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&v));
  v.set_layout(std::make_shared<const RankLayout>(RankLayout::from_scenario(s)));
  QSignalSpy spy(&v, &LayoutView::rank_selected);
  const QPoint at = v.mapFromScene(v.state().geometry.gpu_center(13));
  QTest::mouseClick(v.viewport(), Qt::LeftButton, {}, at);
  ASSERT_EQ(spy.count(), 1);
  EXPECT_EQ(spy.at(0).at(0).toInt(), 13);
  // Rank 13: tp=1, cp=2, dp=1 -> TP group [12 13], CP group [9 11 13 15].
  const auto& tp = v.state().in_group[static_cast<int>(GroupKind::TP)];
  const auto& cp = v.state().in_group[static_cast<int>(GroupKind::CP)];
  EXPECT_TRUE(tp[12] && tp[13] && !tp[14]);
  EXPECT_TRUE(cp[9] && cp[11] && cp[15] && !cp[10]);
  // Clicking between nodes changes nothing.
  QTest::mouseClick(v.viewport(), Qt::LeftButton, {}, QPoint(2, 2));
  EXPECT_EQ(spy.count(), 1);
}

TEST(Screenshot, RingMatrixColouredByRingPosition) {
  QTemporaryDir dir;
  const Scenario s = scenario();   // a2a+p2p [2,2]: ring of 2
  RingStepView v;
  v.set_params(RingStepModel::params_from(s));
  v.resize(1100, 640);
  v.set_step(1);
  const QImage img = v.grab().toImage().convertToFormat(QImage::Format_RGB32);
  // Block (7, 0): query C7 (p=0's late chunk D_3 = C6 C7) x key C0: computed by p=0 at step 0.
  // (Sample near the corner: the centre carries the "0·s0" label.)
  const QPointF c70 = v.block_rect(7, 0).topLeft() + QPointF(5, 5);
  EXPECT_EQ(img.pixelColor(c70.toPoint()).rgb(), ring_position_color(0, 2).rgb());
  // Block (0, 7) is masked (key after query): grey, not a ring colour.
  const QPointF c07 = v.block_rect(0, 7).topLeft() + QPointF(5, 5);
  EXPECT_NE(img.pixelColor(c07.toPoint()).rgb(), ring_position_color(0, 2).rgb());
  EXPECT_NE(img.pixelColor(c07.toPoint()).rgb(), ring_position_color(1, 2).rgb());
  // Via the screenshot path too; both ring colours present.
  ScreenshotRequest r;
  r.view = "ring";
  r.size = QSize(1100, 640);
  const QImage shot = shoot(r, &s, dir);
  EXPECT_GT(count_color(shot, ring_position_color(0, 2)), 1000);
  EXPECT_GT(count_color(shot, ring_position_color(1, 2)), 1000);
  r.step = 2;
  r.out = dir.filePath("bad.png");
  QString err;
  EXPECT_FALSE(render_screenshot(r, &s, &err));
  EXPECT_TRUE(err.contains("steps 0..1")) << err.toStdString();
}

// The panel's slider takes the range of each new model by itself and follows the view both ways.
TEST(StepPanel, SliderFollowsTheViewsSteps) {
  StepPanel<RingStepView> p;
  p.view()->set_params(RingStepModel::params_from(scenario()));   // a ring of 2: steps 0..1
  auto* slider = p.findChild<QSlider*>();
  auto* label = p.findChild<QLabel*>();
  ASSERT_NE(slider, nullptr);
  ASSERT_NE(label, nullptr);
  EXPECT_EQ(slider->maximum(), p.view()->model()->step_count() - 1);
  EXPECT_EQ(slider->maximum(), 1);
  p.view()->set_step(1);
  EXPECT_EQ(slider->value(), 1);
  EXPECT_EQ(label->text(), "step 1");
  slider->setValue(0);
  EXPECT_EQ(p.view()->step(), 0);
  Scenario four = scenario();   // a ring of 4 after a new model
  four.model.cp_comm_type = {CpCommType::P2P};
  four.model.hierarchical_context_parallel_sizes.clear();
  p.view()->set_params(RingStepModel::params_from(four));
  EXPECT_EQ(slider->maximum(), 3);
}

TEST(Screenshot, TimelineFromFileHasKindsAndCriticalPath) {
  QTemporaryDir dir;
  ScreenshotRequest r;
  r.view = "timeline";
  r.size = QSize(1000, 300);
  r.trace = HCPSIM_GUI_TEST_DATA "/two_ranks_trace.json";
  const QImage img = shoot(r, nullptr, dir);
  ASSERT_EQ(img.size(), QSize(1000, 300));
  EXPECT_GT(count_color(img, task_kind_color(TaskKind::AttentionForward)), 200);
  EXPECT_GT(count_color(img, task_kind_color(TaskKind::SendRecv)), 200);
  EXPECT_GT(count_color(img, QColor(0xe0, 0x10, 0x10)), 50);   // critical path outline
}

TEST(TimelineView, TooltipShowsBytesAndFlops) {
  TimelineView v;
  v.resize(1120, 300);
  v.set_traces(load_chrome_trace(HCPSIM_GUI_TEST_DATA "/two_ranks_trace.json"));
  v.set_time_range(0, 20e-6);
  const auto g = v.geometry();
  const QString tip = v.tooltip_at(QPointF(g.x_of(7e-6), g.lane_top(1) + 8));   // rank 0 nccl:p2p 2-12 us
  EXPECT_TRUE(tip.contains("8 MB")) << tip.toStdString();
  EXPECT_TRUE(tip.contains("peers 1")) << tip.toStdString();
  const QString att = v.tooltip_at(QPointF(g.x_of(15e-6), g.lane_top(2) + 8));
  EXPECT_TRUE(att.contains("4 GFLOP")) << att.toStdString();
  EXPECT_TRUE(v.tooltip_at(QPointF(g.x_of(8e-6), g.lane_top(2) + 8)).isEmpty());
  EXPECT_EQ(v.critical().size(), 3u);
}

TEST(Screenshot, TimelineOverlayOfTwoTraces) {
  QTemporaryDir dir;
  ScreenshotRequest r;
  r.view = "timeline";
  r.size = QSize(1000, 300);
  r.trace = HCPSIM_GUI_TEST_DATA "/two_ranks_trace.json";
  r.measured = r.trace;
  const QImage img = shoot(r, nullptr, dir);
  // The measured copy is drawn lighter on the lower half of each lane.
  EXPECT_GT(count_color(img, task_kind_color(TaskKind::AttentionForward).lighter(135)), 100);
}

TEST(Screenshot, TimelineAndChartFromTheAnalyticBackend) {
  QTemporaryDir dir;
  const Scenario s = scenario();
  ScreenshotRequest r;
  r.view = "timeline";
  r.size = QSize(1000, 700);
  const QImage img = shoot(r, &s, dir);
  EXPECT_GT(count_color(img, task_kind_color(TaskKind::AllToAll)), 20);
  EXPECT_GT(count_color(img, task_kind_color(TaskKind::SendRecv)), 20);
  QStringList skipped;
  const CsvTable t = builtin_cp_sweep(s, &skipped);
  // world 16 / tp 2 = 8: cp 2, 4, 8. KV heads per TP rank = 4, so the rules reject a2a at cp=8.
  EXPECT_TRUE(skipped.join('\n').contains("cp=8 a2a:")) << skipped.join('\n').toStdString();
  for (const char* cp : {"2", "4", "8"}) {   // every cp that divides the GPUs has its rows (p2p at least)
    bool p2p = false;
    for (const auto& row : t.rows) p2p = p2p || (row[0] == cp && row[1] == "p2p");
    EXPECT_TRUE(p2p) << "cp=" << cp << ": " << skipped.join('\n').toStdString();
  }
  QStringList cp8;
  for (const auto& row : t.rows)
    if (row[0] == "8") cp8 << row[1] + row[2];
  cp8.sort();
  // p2p, all_gather and the fastest valid a2a+p2p split ([2,4] or [4,2]); no a2a.
  ASSERT_EQ(cp8.size(), 3) << cp8.join(' ').toStdString();
  EXPECT_TRUE(cp8[0].startsWith("a2a+p2p[")) << cp8.join(' ').toStdString();
  EXPECT_EQ(cp8[1], "all_gather");
  EXPECT_EQ(cp8[2], "p2p");
  r.view = "chart";
  const QImage chart = shoot(r, &s, dir);
  EXPECT_GT(non_background_fraction(chart), 0.05);
}

TEST(Screenshot, ChartFromCsvAndSvgExport) {
  QTemporaryDir dir;
  ScreenshotRequest r;
  r.view = "chart";
  r.size = QSize(900, 500);
  r.csv = HCPSIM_GUI_TEST_DATA "/sweep.csv";
  r.out = dir.filePath("chart.svg");
  QString err;
  ASSERT_TRUE(render_screenshot(r, nullptr, &err)) << err.toStdString();
  QFile f(r.out);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  const QByteArray svg = f.readAll();
  EXPECT_TRUE(svg.contains("<svg"));
  EXPECT_TRUE(svg.contains("p2p"));   // legend text is in the SVG
  EXPECT_TRUE(svg.contains("a2a"));
}

TEST(Screenshot, UnknownChartColumnIsAnErrorListingTheColumns) {
  QTemporaryDir dir;
  ScreenshotRequest r;
  r.view = "chart";
  r.size = QSize(900, 500);
  r.csv = HCPSIM_GUI_TEST_DATA "/sweep.csv";
  r.out = dir.filePath("chart.png");
  r.series = "comm";   // sweep.csv has cp_comm_type, not comm
  QString err;
  EXPECT_FALSE(render_screenshot(r, nullptr, &err));
  EXPECT_TRUE(err.contains("--series 'comm'")) << err.toStdString();
  EXPECT_TRUE(err.contains("scenario, cp, cp_comm_type, step_s, note")) << err.toStdString();
  EXPECT_FALSE(QFile::exists(r.out));
  r.series = "cp_comm_type";
  r.y = "step";
  EXPECT_FALSE(render_screenshot(r, nullptr, &err));
  EXPECT_TRUE(err.contains("--y 'step'")) << err.toStdString();
  r.y = "step_s";
  EXPECT_TRUE(render_screenshot(r, nullptr, &err)) << err.toStdString();
}

TEST(Screenshot, ErrorsNameTheProblem) {
  QString err;
  ScreenshotRequest r;
  r.view = "heatmap";
  r.out = "/tmp/x.png";
  EXPECT_FALSE(render_screenshot(r, nullptr, &err));
  EXPECT_TRUE(err.contains("layout, ring, timeline, chart"));
  r.view = "chart";
  r.csv = "/nonexistent.csv";
  EXPECT_FALSE(render_screenshot(r, nullptr, &err));
  EXPECT_TRUE(err.contains("/nonexistent.csv"));
  Scenario s = scenario();
  s.model.context_parallel_size = 1;
  s.model.hierarchical_context_parallel_sizes.clear();
  r.view = "ring";
  EXPECT_FALSE(render_screenshot(r, &s, &err));
  EXPECT_TRUE(err.contains("context_parallel_size"));
  r.view = "layout";
  r.out = "/tmp/x.bmp";
  EXPECT_FALSE(render_screenshot(r, &s, &err));
  EXPECT_TRUE(err.contains("png, svg")) << err.toStdString();
}

}  // namespace
