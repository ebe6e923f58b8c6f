#pragma once
// The hcpsim-gui main window: tabs for the scenario editor, summary, plan, layout, ring steps,
// timeline, charts and sweep; File menu (open scenario / trace / measured trace / CSV, export the current view), drag and drop.
#include <QMainWindow>
#include <memory>
#include <optional>

#include "engine/scenario/scenario.h"
#include "gui/models/timeline_trace.h"

class QTabWidget;
class QComboBox;
class QTableView;
class QStackedWidget;

namespace hcpsim::gui {

class ChartView;
class LayoutView;
class RankTableModel;
class HpStepView;
class RingStepView;
template <class View>
class StepPanel;
class PlanPanel;
class SummaryView;
class SweepPanel;
class StepTimelinePanel;
class BackgroundJob;
class ScenarioEditor;
class TimelineView;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  // Opens a file by its suffix: .yaml/.yml scenario, .json trace, .csv sweep table. Overrides apply to
  // scenarios (k=v, as on the command line). Returns false and shows the reason in the status bar.
  bool open_path(const QString& path, const QStringList& overrides = {});
  bool open_trace(const QString& path, bool measured);
  bool open_csv(const QString& path);
  // Exports the current tab's view to .png or .svg.
  bool export_current(const QString& path, QString* error = nullptr);
  ScenarioEditor* editor() const { return editor_; }
  SummaryView* summary() const { return summary_; }
  PlanPanel* plan() const { return plan_; }
  StepTimelinePanel* step_timeline() const { return step_timeline_; }
  TimelineView* timeline() const { return timeline_; }
  SweepPanel* sweep() const { return sweep_; }
  // Predicts the editor's last valid scenario in the background through the application layer
  // (gui/models/prediction.h); the summary, the timeline and the step view follow. `backend` empty:
  // the scenario's simulation.backend. False when a prediction runs or there is no valid scenario.
  bool run_simulate(const QString& backend = {});

 signals:
  void prediction_finished(const QString& error);   // "" on success
  void step_trace_finished(const QString& error);   // the whole-step timeline; "" on success

 protected:
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  void build_menus();
  void on_scenario(std::shared_ptr<const Scenario> s);
  void run_step_trace(std::shared_ptr<const Scenario> s, const std::string& backend);
  void run_sweep();
  QWidget* current_view() const;

  QTabWidget* tabs_;
  ScenarioEditor* editor_;
  LayoutView* layout_;
  QComboBox* color_by_;
  RankTableModel* rank_model_;
  QTableView* rank_table_;
  QStackedWidget* steps_;
  StepPanel<RingStepView>* ring_;
  StepPanel<HpStepView>* hp_steps_;
  TimelineView* timeline_;
  ChartView* chart_;
  SweepPanel* sweep_;
  SummaryView* summary_;
  PlanPanel* plan_;
  BackgroundJob* predict_job_;
  BackgroundJob* step_job_;
  StepTimelinePanel* step_timeline_;
  std::shared_ptr<const Scenario> scenario_;
  std::optional<TimelineTrace> predicted_, measured_;
};

}  // namespace hcpsim::gui
