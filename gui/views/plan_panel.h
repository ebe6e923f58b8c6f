#pragma once
// The plan view: runs the planner (engine/app/plan_run.h) on a worker thread with progress and
// cancel; a ranked table with filters; a chart of tokens/s per GPU against memory per GPU; the
// picked row's layout and timeline; two pinned rows compared figure by figure.
#include <memory>

#include "engine/planning/planner.h"
#include "gui/models/plan_table_model.h"
#include "gui/views/run_panel.h"

class QChartView;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;
class QTableView;
class QTableWidget;
class QTabWidget;

namespace hcpsim::gui {

class BackgroundJob;
class LayoutView;
class TimelineView;

class PlanPanel : public RunPanel {
  Q_OBJECT
 public:
  explicit PlanPanel(QWidget* parent = nullptr);
  void set_scenario(std::shared_ptr<const Scenario> s);   // the base of the next plan (GPUs: its world size)
  void set_gpus(int gpus);
  // Starts the planner in the background; false when one runs or there is no scenario.
  bool start() override;
  // Shows an outcome (what a finished run does); for screenshots and tests.
  void set_outcome(planning::PlanOutcome out, double capacity_gib);
  // Selects a row of the (filtered) table: its layout, and its timeline predicted in the background.
  void select_row(int row);
  // Pins the selected row as A (slot 0) or B (slot 1); both pinned: the compare tab is filled.
  void pin(int slot);
  PlanTableModel* model() const { return model_; }
  PlanFilterModel* filter() const { return filter_; }
  QTableWidget* compare_table() const { return compare_; }
  QTabWidget* details() const { return details_; }

 private:
  void build_controls();
  void fill_chart();
  void fill_compare();
  std::shared_ptr<const Scenario> base_;
  PlanTableModel* model_;
  PlanFilterModel* filter_;
  QTableView* table_;
  QTabWidget* details_;
  QChartView* chart_;
  LayoutView* layout_;
  TimelineView* timeline_;
  QTableWidget* compare_;
  QSpinBox* gpus_;
  QSpinBox* top_;
  QLineEdit* text_filter_;
  QDoubleSpinBox* max_memory_;
  BackgroundJob* timeline_job_;
  double capacity_gib_ = 0;
  int pinned_[2] = {-1, -1};   // source rows
};

}  // namespace hcpsim::gui
