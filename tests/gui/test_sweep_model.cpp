// The Sweep tab's model: a sweep run in this process through the application layer (app::sweep_points),
// its points as rows with `hcpsim sweep`'s CSV columns, its chart from the results, progress, cancel
// and bad input.
#include <gtest/gtest.h>

#include <QStringList>
#include <cmath>

#include "engine/app/scenario_input.h"
#include "engine/app/sweep_run.h"
#include "gui/models/prediction.h"
#include "gui/models/summary_model.h"
#include "gui/models/sweep_table_model.h"

using namespace hcpsim;
using namespace hcpsim::gui;

namespace {

constexpr const char* kScenario = HCPSIM_SOURCE_DIR "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml";

// cp 2, 3, 4 (3 does not divide 8 GPUs: invalid) x p2p, a2a with the analytic backend.
planning::SweepSpec cp_by_comm() {
  planning::SweepSpec spec = app::sweep_spec(kScenario, {"model.context_parallel_size=2,3,4", "model.cp_comm_type=p2p,a2a"});
  spec.backend = "analytic";
  return spec;
}

TEST(SweepModel, RowsAreThePointsInOrderWithTheCliColumns) {
  std::size_t calls = 0;
  const app::SweepRun run = app::sweep_points(cp_by_comm(), [&](std::size_t done, std::size_t total) {
    ++calls;
    EXPECT_EQ(done, calls);
    EXPECT_EQ(total, 6u);
  });
  EXPECT_EQ(calls, 6u);
  SweepTableModel m;
  m.set_run(run);
  ASSERT_EQ(m.rowCount(), 6);
  QStringList header;
  for (int c = 0; c < m.columnCount(); ++c) header << m.headerData(c, Qt::Horizontal).toString();
  EXPECT_EQ(header.join(',').toStdString(), planning::csv_header(run.columns));
  const int cp = m.column("model.context_parallel_size"), comm = m.column("model.cp_comm_type");
  const int status = m.column("status"), step = m.column("step_s");
  ASSERT_GE(step, 0);
  const char* expected[][3] = {{"2", "p2p", "ok"}, {"2", "a2a", "ok"}, {"3", "p2p", "invalid"},
                               {"3", "a2a", "invalid"}, {"4", "p2p", "ok"}, {"4", "a2a", "ok"}};   // first axis slowest
  for (int r = 0; r < 6; ++r) {
    EXPECT_EQ(m.data(m.index(r, cp)).toString(), expected[r][0]) << r;
    EXPECT_EQ(m.data(m.index(r, comm)).toString(), expected[r][1]) << r;
    EXPECT_EQ(m.data(m.index(r, status)).toString(), expected[r][2]) << r;
    const double v = m.data(m.index(r, step), Qt::UserRole).toDouble();
    if (std::string(expected[r][2]) == "ok") {
      EXPECT_DOUBLE_EQ(v, run.results[static_cast<std::size_t>(r)].metrics.step_s) << r;
      EXPECT_GT(v, 0) << r;
    } else {
      EXPECT_TRUE(std::isnan(v)) << r;
      EXPECT_EQ(m.data(m.index(r, step)).toString(), "-");
      EXPECT_TRUE(m.data(m.index(r, 0), Qt::ToolTipRole).toString().contains("context_parallel_size"))
          << m.data(m.index(r, 0), Qt::ToolTipRole).toString().toStdString();
    }
  }
}

TEST(SweepModel, StepTimeIsTheSummarysFigureForThatPoint) {
  const app::SweepRun run = app::sweep_points(cp_by_comm());
  auto loaded = app::load_scenario({.file = kScenario,
                                    .overrides = {"model.context_parallel_size=4", "model.cp_comm_type=a2a"},
                                    .backend = "analytic", .check_backend = true});
  ASSERT_TRUE(loaded.usable());
  const Summary s = summarize(default_predictor().predict(loaded.scenario, "analytic").report);
  ASSERT_NE(s.find("step.time_s"), nullptr);
  EXPECT_DOUBLE_EQ(run.results[5].metrics.step_s, s.find("step.time_s")->value);
  EXPECT_DOUBLE_EQ(run.results[5].metrics.tokens_per_s_per_gpu, s.find("step.tokens_per_s_per_gpu")->value);
}

TEST(SweepModel, ChartDrawsTheValidPointsOneLinePerCommType) {
  const app::SweepRun run = app::sweep_points(cp_by_comm());
  const planning::ChartData c = sweep_chart_data(run);
  EXPECT_EQ(c.x_label, "model.context_parallel_size");
  EXPECT_EQ(c.y_label, "step_s");
  ASSERT_EQ(c.series.size(), 2u);
  for (const planning::ChartSeries& s : c.series) {
    EXPECT_TRUE(s.name == "p2p" || s.name == "a2a") << s.name;
    EXPECT_EQ(s.x, (std::vector<double>{2, 4})) << "cp=3 is invalid and not drawn";
    for (double y : s.y) EXPECT_GT(y, 0);
  }
}

TEST(SweepModel, CancelStopsBeforeTheNextPoint) {
  std::atomic<bool> cancel{false};
  std::size_t evaluated = 0;
  EXPECT_THROW(app::sweep_points(cp_by_comm(), [&](std::size_t done, std::size_t) {
                 evaluated = done;
                 if (done == 2) cancel = true;
               }, &cancel),
               app::SweepCancelled);
  EXPECT_EQ(evaluated, 2u);
}

TEST(SweepModel, AxesSplitAtSpacesOutsideBrackets) {
  EXPECT_EQ(split_axes("  model.context_parallel_size=2,4   model.hierarchical_context_parallel_sizes=[2, 4],[4, 2] "),
            (std::vector<std::string>{"model.context_parallel_size=2,4",
                                      "model.hierarchical_context_parallel_sizes=[2,4],[4,2]"}));
  EXPECT_TRUE(split_axes("   ").empty());
  const planning::SweepSpec spec =
      app::sweep_spec(kScenario, split_axes("model.hierarchical_context_parallel_sizes=[2, 4],[4, 2]"));
  ASSERT_EQ(spec.groups.size(), 1u);
  EXPECT_EQ(spec.groups[0].values.size(), 2u);
}

TEST(SweepModel, BadInputNamesTheProblem) {
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  EXPECT_NE(message([] { app::sweep_spec(kScenario); }).find("nothing to vary"), std::string::npos);
  EXPECT_NE(message([] { app::sweep_spec(kScenario, {"model.context_parallel_size"}); }).find("model.context_parallel_size"),
            std::string::npos);
  EXPECT_NE(message([] { app::sweep_spec("/nonexistent/sweep.yaml", {"a=1"}); }).find("no such file"), std::string::npos);
  planning::SweepSpec spec = cp_by_comm();
  spec.backend = "nonesuch";
  EXPECT_NE(message([&] { app::sweep_points(spec); }).find("unknown backend 'nonesuch'"), std::string::npos);
}

}  // namespace
