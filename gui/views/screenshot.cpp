#include "gui/views/screenshot.h"

#include <QApplication>
#include <stdexcept>

#include "gui/models/cp_sweep.h"
#include "gui/models/prediction.h"
#include "gui/charts/csv_table.h"
#include "gui/models/timeline_trace.h"
#include "gui/views/chart_view.h"
#include "gui/views/export.h"
#include "engine/app/plan_run.h"
#include "engine/app/step_trace.h"
#include "gui/models/summary_model.h"
#include "gui/views/layout_view.h"
#include "gui/views/plan_panel.h"
#include "gui/views/step_timeline_panel.h"
#include "gui/views/summary_view.h"
#include "gui/views/hp_step_view.h"
#include "gui/views/ring_step_view.h"
#include "gui/views/timeline_view.h"

namespace hcpsim::gui {
namespace {

bool finish(QWidget& w, const ScreenshotRequest& r, QString* error) {
  w.setAttribute(Qt::WA_DontShowOnScreen);
  w.resize(r.size);
  w.show();
  QApplication::processEvents();
  if (auto* lv = qobject_cast<LayoutView*>(&w)) lv->fit();
  QApplication::processEvents();
  const bool ok = export_widget(&w, r.out, error);
  w.hide();
  return ok;
}

bool fail(QString* error, const QString& msg) {
  if (error) *error = msg;
  return false;
}

// The summary of the application layer's prediction (the figures `hcpsim simulate` reports).
bool shoot_summary(const ScreenshotRequest& r, const Scenario& s, QString* error) {
  SummaryView v;
  v.set_summary(summarize(default_predictor().predict(s, r.backend.toStdString()).report));
  return finish(v, r, error);
}

// The planner's answer on the scenario's model (or on --gpus GPUs), best row picked.
bool shoot_plan(const ScreenshotRequest& r, const Scenario& s, QString* error) {
  const planning::PlanOptions options = plan_view_options(r.gpus, 200);
  PlanPanel v;
  v.set_scenario(std::make_shared<const Scenario>(s));
  if (r.gpus > 0) v.set_gpus(r.gpus);
  v.set_outcome(app::plan_layouts(s, options), s.cluster.gpu.memory_bytes / (1024.0 * 1024.0 * 1024.0));
  return finish(v, r, error);
}

// The whole training step (the trace `hcpsim simulate --step-trace` writes).
bool shoot_step_timeline(const ScreenshotRequest& r, const Scenario& s, QString* error) {
  StepTimelinePanel v;
  v.set_trace(app::predict_step_trace(s, r.backend.toStdString()));
  return finish(v, r, error);
}

}  // namespace

QString screenshot_views() { return QStringLiteral("layout, ring, timeline, chart, summary, plan, step-timeline"); }

bool render_screenshot(const ScreenshotRequest& r, const Scenario* s, QString* error) {
  try {
    if (r.view == "layout") {
      if (!s) return fail(error, "layout: needs a scenario FILE");
      ColorBy c;
      if (!parse_color_by(r.color_by, c))
        return fail(error, "--color-by '" + r.color_by + "' is not one of tp, cp, dp, pp, a2a, ring");
      LayoutView v;
      v.set_layout(std::make_shared<const RankLayout>(RankLayout::from_scenario(*s)));
      v.set_color_by(c);
      if (r.select_rank >= 0) {
        if (r.select_rank >= s->world_size())
          return fail(error, QStringLiteral("--select %1: the scenario has ranks 0..%2").arg(r.select_rank).arg(s->world_size() - 1));
        v.select_rank(r.select_rank);
      }
      return finish(v, r, error);
    }
    if (r.view == "ring") {
      if (!s) return fail(error, "ring: needs a scenario FILE");
      if (s->cp() < 2) return fail(error, "ring: model.context_parallel_size is 1; there is no CP group to show");
      if (s->hyperparallel_cp()) {   // the step view of HyperParallel's schedules
        HpStepView v;
        v.set_scenario(*s);
        const int n = v.model()->step_count();
        if (r.step >= n) return fail(error, QStringLiteral("--step %1: this schedule has steps 0..%2").arg(r.step).arg(n - 1));
        v.set_step(r.step < 0 ? 0 : r.step);
        return finish(v, r, error);
      }
      RingStepView v;
      v.set_params(RingStepModel::params_from(*s));
      v.set_step(r.step < 0 ? v.model()->step_count() - 1 : r.step);
      if (r.step >= v.model()->step_count())
        return fail(error, QStringLiteral("--step %1: this schedule has steps 0..%2").arg(r.step).arg(v.model()->step_count() - 1));
      return finish(v, r, error);
    }
    if (r.view == "timeline") {
      if (r.trace.isEmpty() && !s) return fail(error, "timeline: needs a scenario FILE or --trace FILE");
      TimelineView v;
      std::optional<TimelineTrace> meas;
      if (!r.measured.isEmpty()) meas = load_chrome_trace(r.measured.toStdString());
      // Without --trace: the application layer with the analytic backend, the whole simulated layer.
      TimelineTrace pred = r.trace.isEmpty() ? from_engine_trace(default_predictor().predict(*s, "analytic").trace) : load_chrome_trace(r.trace.toStdString());
      v.set_traces(std::move(pred), std::move(meas));
      return finish(v, r, error);
    }
    if (r.view == "summary" || r.view == "plan" || r.view == "step-timeline") {
      if (!s) return fail(error, r.view + ": needs a scenario FILE");
      if (r.view == "step-timeline") return shoot_step_timeline(r, *s, error);
      return r.view == "summary" ? shoot_summary(r, *s, error) : shoot_plan(r, *s, error);
    }
    if (r.view == "chart") {
      ChartView v;
      if (!r.csv.isEmpty()) {
        const CsvTable t = load_csv(r.csv);
        for (const auto& [option, name] : {std::pair{QStringLiteral("--x"), r.x}, std::pair{QStringLiteral("--y"), r.y},
                                           std::pair{QStringLiteral("--series"), r.series}})
          if (!name.isEmpty() && t.column(name) < 0)
            return fail(error, option + " '" + name + "': " + r.csv + " has no such column; valid columns: " +
                                   t.header.join(", "));
        const ChartColumns c = guess_chart_columns(t, r.x, r.y, r.series);
        if (c.x < 0 || c.y < 0) return fail(error, r.csv + ": no numeric x/y columns found (use --x/--y)");
        const QString title = (s ? QString::fromStdString(s->name) + ": " : QString()) + t.header[c.y] + " vs " + t.header[c.x];
        if (v.show_sweep(t, c, title) == 0) return fail(error, r.csv + ": no rows with numeric x and y");
      } else if (!r.trace.isEmpty() && !r.measured.isEmpty()) {
        if (v.show_predicted_vs_measured(load_chrome_trace(r.trace.toStdString()), load_chrome_trace(r.measured.toStdString())) == 0)
          return fail(error, "chart: no task of " + r.trace + " was found in " + r.measured);
      } else if (s) {
        const CsvTable t = builtin_cp_sweep(*s);
        const QString title = QString::fromStdString(s->name) + ": attention fwd+bwd of one layer vs cp (analytic)";
        if (v.show_sweep(t, guess_chart_columns(t, "cp", "attention_s", "cp_comm_type"), title) == 0)
          return fail(error, "chart: no cp > 1 fits this scenario (world / (tp*pp) and seq_length / 2)");
      } else {
        return fail(error, "chart: needs a scenario FILE, --csv FILE, or --trace PRED.json --measured MEAS.json");
      }
      return finish(v, r, error);
    }
  } catch (const std::exception& e) {
    return fail(error, QString::fromUtf8(e.what()));
  }
  return fail(error, "unknown view '" + r.view + "' (valid: " + screenshot_views() + ")");
}

}  // namespace hcpsim::gui
