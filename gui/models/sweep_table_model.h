#pragma once
// A sweep's results (app::SweepRun, evaluated in this process) as an item model: one row per point in
// point order, with the columns of `hcpsim sweep`'s CSV file (the axes, status, comm_type, every
// planner metric, fits, wall_s, message); and the sweep's chart.
#include "engine/app/sweep_run.h"
#include "engine/planning/sweep_chart.h"
#include "gui/models/result_table_model.h"

namespace hcpsim::gui {

class SweepTableModel : public ResultTableModel {
  Q_OBJECT
 public:
  explicit SweepTableModel(QObject* parent = nullptr);
  void set_run(app::SweepRun run);   // resets the model
  const app::SweepRun& run() const { return run_; }

  // DisplayRole: the text (numbers as `hcpsim sweep` writes them, "-" when absent); Qt::UserRole: the
  // number for metric columns (NaN when absent), else the text; ToolTipRole: the point's message.
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 protected:
  int rows() const override { return static_cast<int>(run_.results.size()); }

 private:
  app::SweepRun run_;
};

// The axes typed on one line, as `--vary` arguments: split at spaces outside [...], so
// "model.context_parallel_size=2,4 model.hierarchical_context_parallel_sizes=[2, 4],[4, 2]" gives two.
std::vector<std::string> split_axes(const QString& line);

// The sweep's metric (spec.metric) against its first axis, one series per value of the other axes;
// only valid points with the metric are drawn (planning::make_chart). Throws std::invalid_argument
// when the run has no axis.
planning::ChartData sweep_chart_data(const app::SweepRun& run);

}  // namespace hcpsim::gui
