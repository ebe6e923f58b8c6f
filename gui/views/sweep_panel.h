#pragma once
// Run ▸ Sweep: a sweep file, or a scenario with KEY=V1,V2,... axes, evaluated in this process through
// the application layer (engine/app/sweep_run.h) on a worker thread, with progress and Cancel; the
// points as a table (gui/models/sweep_table_model.h) beside the sweep's chart.
#include "gui/models/sweep_table_model.h"
#include "gui/views/run_panel.h"

class QLineEdit;
class QTableView;

namespace hcpsim::gui {

class ChartView;

class SweepPanel : public RunPanel {
  Q_OBJECT
 public:
  explicit SweepPanel(QWidget* parent = nullptr);
  // A sweep file (its axes), or a scenario (the axes come from the vary line).
  void set_file(const QString& path);
  // Axes to add, separated by spaces (split_axes): "model.context_parallel_size=2,4,8 model.cp_comm_type=p2p,a2a".
  void set_vary(const QString& line);
  // Starts the sweep in the background; false (and the reason in the status line) when one runs or
  // the file or the axes are bad.
  bool start() override;
  SweepTableModel* model() const { return model_; }
  ChartView* chart() const { return chart_; }

 private:
  void show_run(app::SweepRun run);
  SweepTableModel* model_;
  QLineEdit* file_;
  QLineEdit* vary_;
  QTableView* table_;
  ChartView* chart_;
};

}  // namespace hcpsim::gui
