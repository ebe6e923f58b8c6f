// The HyperParallel step view rendered offscreen for every mode: what it draws at each step (group
// outlines, message arrows, step rows) equals the graph's steps, groups and messages; the outline
// colour is the group kind's; the screenshot path picks this view for a
// hyperparallel: scenario (the main window's choice is in test_app.cpp).
#include <gtest/gtest.h>

#include <QImage>
#include <QTemporaryDir>

#include "gui/charts/colors.h"
#include "gui/views/hp_step_view.h"
#include "gui/views/screenshot.h"
#include "hp_step_scenarios.h"

using namespace hcpsim;
using namespace hcpsim::gui;
using namespace hcpsim::gui::test;

namespace {

int count_color(const QImage& img, QColor c) {
  int n = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) n += (img.pixel(x, y) & 0xffffff) == (c.rgb() & 0xffffff);
  return n;
}

class HpStepViewAllModes : public ::testing::TestWithParam<HpCase> {};

TEST_P(HpStepViewAllModes, DrawsEveryStepsGroupsAndMessages) {
  const Scenario s = load_hp_case(GetParam());
  HpStepView v;
  v.set_scenario(s);
  v.resize(1200, 760);
  const HpStepModel& m = *v.model();
  std::size_t groups = 0, messages = 0, comm = 0;
  for (int i = 0; i < m.step_count(); ++i) {
    v.set_step(i);
    (void)v.grab();
    const HpStep& st = m.step(i);
    ASSERT_EQ(v.drawn_step_rows(), m.step_count());
    EXPECT_EQ(v.drawn_groups(), static_cast<int>(st.groups.size())) << "step " << i << " " << st.label;
    EXPECT_EQ(v.drawn_messages(), static_cast<int>(st.messages.size())) << "step " << i << " " << st.label;
    groups += static_cast<std::size_t>(v.drawn_groups());
    messages += static_cast<std::size_t>(v.drawn_messages());
    comm += st.communication;
  }
  // Summed over the steps: one outline per CommOp of the group, every message of every collective.
  std::size_t ops = 0;
  for (const CommOp& c : m.graph().comms())
    ops += std::any_of(c.ranks.begin(), c.ranks.end(), [&](int r) {
      return std::find(m.cp_ranks().begin(), m.cp_ranks().end(), r) != m.cp_ranks().end();
    });
  EXPECT_EQ(groups, ops);
  EXPECT_GT(messages, comm);
}

INSTANTIATE_TEST_SUITE_P(Modes, HpStepViewAllModes, ::testing::ValuesIn(hp_cases()),
                         [](const auto& i) { return i.param.name; });

int first_step(const HpStepModel& m, TaskKind kind) {
  for (int i = 0; i < m.step_count(); ++i)
    if (m.step(i).kind == kind) return i;
  return -1;
}

TEST(HpStepView, GroupOutlinesInTheirKindsColour) {
  HpStepView v;
  v.set_scenario(load_hp_case(hp_case("hybrid")));
  v.resize(1200, 760);
  const int a2a = first_step(*v.model(), TaskKind::AllToAll), ag = first_step(*v.model(), TaskKind::AllGather);
  ASSERT_GE(a2a, 0);
  ASSERT_GE(ag, 0);
  v.set_step(a2a);
  const QImage at_a2a = v.grab().toImage().convertToFormat(QImage::Format_RGB32);
  v.set_step(ag);
  const QImage at_ag = v.grab().toImage().convertToFormat(QImage::Format_RGB32);
  const QColor ulysses = group_kind_color(GroupKind::HP_ULYSSES), colossal = group_kind_color(GroupKind::HP_COLOSSAL);
  EXPECT_GT(count_color(at_a2a, ulysses), 200);
  EXPECT_EQ(count_color(at_a2a, colossal), 0);
  EXPECT_GT(count_color(at_ag, colossal), 200);
  EXPECT_EQ(count_color(at_ag, ulysses), 0);
  // The (co, ds) mesh: CP index 1 is beside 0 (same Colossal row), 2 below 0 (same Ulysses column).
  EXPECT_GT(v.member_rect(1).x(), v.member_rect(0).x());
  EXPECT_DOUBLE_EQ(v.member_rect(1).y(), v.member_rect(0).y());
  EXPECT_GT(v.member_rect(2).y(), v.member_rect(0).y());
  EXPECT_DOUBLE_EQ(v.member_rect(2).x(), v.member_rect(0).x());
}

TEST(HpStepView, ScreenshotRingViewOfAHyperParallelScenario) {
  QTemporaryDir dir;
  const Scenario s = load_hp_case(hp_case("load_balance"));
  ScreenshotRequest r;
  r.view = "ring";
  r.size = QSize(1000, 640);
  r.out = dir.filePath("hp.png");
  QString err;
  ASSERT_TRUE(render_screenshot(r, &s, &err)) << err.toStdString();
  const QImage img = QImage(r.out).convertToFormat(QImage::Format_RGB32);
  ASSERT_EQ(img.size(), QSize(1000, 640));
  EXPECT_LT(count_color(img, background_color()), img.width() * img.height() * 0.95);
  r.step = 999;
  EXPECT_FALSE(render_screenshot(r, &s, &err));
  EXPECT_TRUE(err.contains("this schedule has steps 0..")) << err.toStdString();
}

}  // namespace
