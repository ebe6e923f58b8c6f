// The plan view's models: the planner's ranked answer through the application layer, filters, the
// comparison of two rows, and cancel.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/app/plan_run.h"
#include "engine/app/scenario_input.h"
#include "engine/planning/sweep_result.h"
#include "gui/models/plan_table_model.h"

using namespace hcpsim;
using namespace hcpsim::gui;

namespace {

Scenario base() {
  auto loaded = app::load_scenario({.file = HCPSIM_SOURCE_DIR "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml",
                                    .overrides = {}, .backend = "analytic", .check_backend = true});
  EXPECT_TRUE(loaded.usable());
  return loaded.scenario;
}

planning::PlanOutcome small_plan() {
  planning::PlanOptions o;
  o.top = 100;
  o.search = planning::PlanSearch::layouts_only();
  return app::plan_layouts(base(), o);
}

TEST(PlanModel, RowsAreThePlannersRankingBestFirst) {
  const planning::PlanOutcome out = small_plan();
  ASSERT_GE(out.best.size(), 3u);
  PlanTableModel m;
  m.set_outcome(out);
  ASSERT_EQ(m.rowCount(), static_cast<int>(out.best.size()));
  EXPECT_EQ(out.metric, "tokens_per_s_per_gpu");
  for (int r = 0; r + 1 < m.rowCount(); ++r)
    EXPECT_GE(m.data(m.index(r, PlanTableModel::TokensPerGpu), Qt::UserRole).toDouble(),
              m.data(m.index(r + 1, PlanTableModel::TokensPerGpu), Qt::UserRole).toDouble());
  EXPECT_EQ(m.data(m.index(0, PlanTableModel::Layout)).toString().toStdString(), out.best[0].candidate.label());
  EXPECT_DOUBLE_EQ(m.data(m.index(0, PlanTableModel::StepTime), Qt::UserRole).toDouble(), out.best[0].result.metrics.step_s);
  EXPECT_FALSE(m.data(m.index(0, PlanTableModel::Layout), Qt::ToolTipRole).toString().isEmpty());   // the sentence
  // One header name per column, in the columns' order.
  EXPECT_EQ(m.columnCount(), PlanTableModel::ColumnCount);
  EXPECT_EQ(m.column("layout"), PlanTableModel::Layout);
  EXPECT_EQ(m.headerData(PlanTableModel::MemoryGiB, Qt::Horizontal).toString(), "memory per GPU (GiB)");
  EXPECT_FALSE(m.headerData(PlanTableModel::ColumnCount, Qt::Horizontal).isValid());
}

TEST(PlanModel, TiesWithTheBestAreMarkedInTheRankColumn) {
  const planning::PlanOutcome out = small_plan();
  PlanTableModel m;
  m.set_outcome(out);
  int ties = 0;
  for (int r = 0; r < m.rowCount(); ++r) {
    const std::string rank = m.data(m.index(r, PlanTableModel::Rank)).toString().toStdString();
    const bool marked = rank.find("tie with #1") != std::string::npos;
    EXPECT_EQ(marked, out.best[static_cast<std::size_t>(r)].ties_best) << "row " << r << ": " << rank;
    ties += marked;
  }
  EXPECT_FALSE(out.best.front().ties_best) << "the best is no tie with itself";
  EXPECT_GT(ties, 0) << "the 8B plan has layouts within the band of the best";
}

TEST(PlanModel, FiltersByLayoutTextAndMemory) {
  PlanTableModel m;
  m.set_outcome(small_plan());
  PlanFilterModel f;
  f.setSourceModel(&m);
  f.set_layout_text("a2a");
  ASSERT_GT(f.rowCount(), 0);
  ASSERT_LT(f.rowCount(), m.rowCount());
  for (int r = 0; r < f.rowCount(); ++r) EXPECT_TRUE(f.data(f.index(r, PlanTableModel::Layout)).toString().contains("a2a"));
  f.set_layout_text("");
  double lowest = 1e30;
  for (int r = 0; r < m.rowCount(); ++r) lowest = std::min(lowest, m.data(m.index(r, PlanTableModel::MemoryGiB), Qt::UserRole).toDouble());
  f.set_max_memory_gib(lowest);
  ASSERT_GE(f.rowCount(), 1);
  for (int r = 0; r < f.rowCount(); ++r) EXPECT_LE(f.data(f.index(r, PlanTableModel::MemoryGiB), Qt::UserRole).toDouble(), lowest);
}

TEST(PlanModel, CompareGivesEveryFigureWithTheDifference) {
  const planning::PlanOutcome out = small_plan();
  ASSERT_GE(out.best.size(), 2u);
  const auto rows = compare_entries(out.best[0], out.best[1]);
  bool saw_step = false, saw_layout = false;
  for (const CompareRow& r : rows) {
    if (r.figure == "step_s") {
      saw_step = true;
      const double d = out.best[1].result.metrics.step_s - out.best[0].result.metrics.step_s;
      EXPECT_NEAR(r.difference.section(' ', 0, 0).toDouble(), d, std::fabs(d) * 1e-3 + 1e-12) << r.difference.toStdString();
    }
    if (r.figure == "layout") {
      saw_layout = true;
      EXPECT_EQ(r.difference, "differs");
    }
  }
  EXPECT_TRUE(saw_step);
  EXPECT_TRUE(saw_layout);
  // Every planner metric the two rows have is a row.
  std::size_t metrics = 0;
  for (const auto& name : planning::metric_names())
    metrics += !(std::isnan(planning::metric_value(out.best[0].result, name)) && std::isnan(planning::metric_value(out.best[1].result, name)));
  std::size_t metric_rows = 0;
  for (const CompareRow& r : rows)
    for (const auto& name : planning::metric_names()) metric_rows += r.figure.toStdString() == name;
  EXPECT_EQ(metric_rows, metrics);
}

TEST(PlanModel, ChartDrawsTheLayoutsThatDoNotFitAboveCapacity) {
  const Scenario s = base();   // 8B at 64K on 8 H100s: most layouts without recomputation do not fit
  const double capacity_gib = s.cluster.gpu.memory_bytes / (1024.0 * 1024.0 * 1024.0);
  const planning::PlanOutcome out = app::plan_layouts(s, plan_view_options(0, 20));
  ASSERT_GE(out.out_of_memory, 20u);
  ASSERT_EQ(out.closest_misses.size(), 20u);
  const PlanChartPoints p = plan_chart_points(out);
  EXPECT_EQ(p.fits.size(), out.best.size());
  ASSERT_EQ(p.over.size(), 20u);
  for (const QPointF& f : p.fits) {
    EXPECT_LE(f.x(), capacity_gib);
    EXPECT_GT(f.y(), 0);
  }
  for (const QPointF& o : p.over) {
    EXPECT_GT(o.x(), capacity_gib);
    EXPECT_GT(o.y(), 0);
  }
  EXPECT_DOUBLE_EQ(p.over.front().x(), out.closest_misses.front().total_bytes / (1024.0 * 1024.0 * 1024.0));
  // Without the misses' predictions there is nothing to draw above capacity.
  planning::PlanOptions unpredicted = plan_view_options(0, 20);
  unpredicted.predict_misses = false;
  EXPECT_TRUE(plan_chart_points(app::plan_layouts(s, unpredicted)).over.empty());
}

TEST(PlanModel, CancelStopsThePlan) {
  const std::atomic<bool> cancel{true};
  planning::PlanOptions o;
  o.search = planning::PlanSearch::layouts_only();
  EXPECT_THROW(app::plan_layouts(base(), o, "", &cancel), app::PlanCancelled);
}

}  // namespace
