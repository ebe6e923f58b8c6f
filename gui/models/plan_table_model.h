#pragma once
// The planner's ranked answer as an item model (one row per predicted layout, best first) and the
// side-by-side comparison of two of its rows. Figures are the planner's metrics (metric_names()).
#include <QPointF>
#include <QSortFilterProxyModel>
#include <vector>

#include "engine/planning/planner.h"
#include "gui/models/result_table_model.h"

namespace hcpsim::gui {

class PlanTableModel : public ResultTableModel {
  Q_OBJECT
 public:
  enum Column { Rank, Layout, StepTime, TokensPerGpu, Mfu, MemoryGiB, Bubble, ExposedComm, ColumnCount };

  explicit PlanTableModel(QObject* parent = nullptr);
  void set_outcome(planning::PlanOutcome out);   // resets the model
  const planning::PlanOutcome& outcome() const { return out_; }
  const planning::PlanEntry* entry(int row) const;

  // DisplayRole: text with units; Qt::UserRole: the number (sorting, filters); ToolTipRole: the
  // entry's explanation sentence.
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 protected:
  int rows() const override { return static_cast<int>(out_.best.size()); }

 private:
  planning::PlanOutcome out_;
};

// Filters: a text every layout label must contain ("" = any) and the largest memory per GPU (GiB,
// 0 = any).
class PlanFilterModel : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit PlanFilterModel(QObject* parent = nullptr);
  void set_layout_text(const QString& text);
  void set_max_memory_gib(double gib);

 protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

 private:
  QString text_;
  double max_gib_ = 0;
};

struct CompareRow {
  QString figure;   // metric name, or a layout field ("tp", "cp", "comm", ...)
  QString a, b;     // values as shown
  QString difference;   // b - a (numbers), "same" or "differs" (layout fields)
};

// What the plan view asks the planner: every axis searched on `gpus` GPUs (0 = the scenario's), the
// best `top` ranked, and as many of the closest misses predicted (the chart's "does not fit").
planning::PlanOptions plan_view_options(int gpus, int top);

// The plan chart's points, tokens/s per GPU (y) against memory per GPU in GiB (x): the ranked layouts,
// which fit, and the predicted closest misses (planning::PlanOptions::predict_misses), which do not.
// Points without both figures are left out.
struct PlanChartPoints {
  std::vector<QPointF> fits;
  std::vector<QPointF> over;
};
PlanChartPoints plan_chart_points(const planning::PlanOutcome& out);

// Every figure of two plan entries side by side: the layout fields, then every planner metric.
std::vector<CompareRow> compare_entries(const planning::PlanEntry& a, const planning::PlanEntry& b);

}  // namespace hcpsim::gui
