#include "gui/app/main_window.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDragEnterEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTableView>
#include <QTabWidget>
#include <QVBoxLayout>

#include "engine/app/step_trace.h"
#include "engine/layout/rank_layout.h"
#include "gui/app/scenario_editor.h"
#include "gui/charts/csv_table.h"
#include "gui/models/rank_table_model.h"
#include "gui/models/prediction.h"
#include "gui/models/summary_model.h"
#include "gui/views/background_job.h"
#include "gui/views/chart_view.h"
#include "gui/views/plan_panel.h"
#include "gui/views/step_timeline_panel.h"
#include "gui/views/summary_view.h"
#include "gui/views/sweep_panel.h"
#include "gui/views/export.h"
#include "gui/views/layout_view.h"
#include "gui/views/hp_step_view.h"
#include "gui/views/ring_step_view.h"
#include "gui/views/step_panel.h"
#include "gui/views/timeline_view.h"

namespace hcpsim::gui {
namespace {

// A page of type W made on `tabs` and added as its last tab, under `title`.
template <class W>
W* add_page(QTabWidget* tabs, const QString& title) {
  auto* page = new W(tabs);
  tabs->addTab(page, title);
  return page;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("hcpsim"));
  setAcceptDrops(true);
  tabs_ = new QTabWidget(this);
  editor_ = add_page<ScenarioEditor>(tabs_, tr("Scenario"));
  summary_ = add_page<SummaryView>(tabs_, tr("Summary"));
  plan_ = add_page<PlanPanel>(tabs_, tr("Plan"));
  predict_job_ = new BackgroundJob(this);

  auto* layout_host = new QWidget(tabs_);
  auto* lv = new QVBoxLayout(layout_host);
  auto* bar = new QHBoxLayout;
  color_by_ = new QComboBox(layout_host);
  for (int i = 0; i < kColorByCount; ++i) color_by_->addItem(QString::fromLatin1(to_string(static_cast<ColorBy>(i))));
  color_by_->setCurrentText("cp");
  auto* rings = new QCheckBox(tr("ring arrows"), layout_host);
  rings->setChecked(true);
  bar->addWidget(new QLabel(tr("colour by"), layout_host));
  bar->addWidget(color_by_);
  bar->addWidget(rings);
  bar->addStretch(1);
  lv->addLayout(bar);
  auto* split = new QSplitter(layout_host);
  layout_ = new LayoutView(split);
  rank_model_ = new RankTableModel(this);
  rank_table_ = new QTableView(split);
  rank_table_->setModel(rank_model_);
  rank_table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  rank_table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  split->setStretchFactor(0, 3);
  lv->addWidget(split, 1);
  tabs_->addTab(layout_host, tr("Layout"));
  connect(color_by_, &QComboBox::currentTextChanged, this, [this](const QString& s) {
    ColorBy c;
    if (parse_color_by(s, c)) layout_->set_color_by(c);
  });
  connect(rings, &QCheckBox::toggled, layout_, &LayoutView::set_show_rings);
  connect(layout_, &LayoutView::rank_selected, this, [this](int r) {
    if (r >= 0) rank_table_->selectRow(r);
  });
  connect(rank_table_, &QTableView::clicked, this, [this](const QModelIndex& i) { layout_->select_rank(i.row()); });

  // Steps: Megatron's ring-step view, or the HyperParallel step view for a hyperparallel: scenario.
  steps_ = new QStackedWidget(tabs_);
  ring_ = new StepPanel<RingStepView>(steps_);
  hp_steps_ = new StepPanel<HpStepView>(steps_);
  steps_->addWidget(ring_);
  steps_->addWidget(hp_steps_);
  tabs_->addTab(steps_, tr("Ring steps"));
  timeline_ = add_page<TimelineView>(tabs_, tr("Timeline"));
  step_timeline_ = add_page<StepTimelinePanel>(tabs_, tr("Step timeline"));
  step_job_ = new BackgroundJob(this);
  chart_ = add_page<ChartView>(tabs_, tr("Charts"));
  sweep_ = add_page<SweepPanel>(tabs_, tr("Sweep"));
  setCentralWidget(tabs_);
  build_menus();

  connect(editor_, &ScenarioEditor::scenario_changed, this, &MainWindow::on_scenario);
  connect(editor_, &ScenarioEditor::diagnostics_changed, this, [this](int e, int w) {
    statusBar()->showMessage(e ? tr("%1 error(s), %2 warning(s)").arg(e).arg(w) : tr("valid, %1 warning(s)").arg(w));
  });
  resize(1280, 820);
}

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("Open &scenario…"), QKeySequence::Open, this, [this] {
    const QString p = QFileDialog::getOpenFileName(this, tr("Open scenario"), {}, tr("Scenarios (*.yaml *.yml)"));
    if (!p.isEmpty()) open_path(p);
  });
  file->addAction(tr("&Save scenario"), QKeySequence::Save, this, [this] {
    QString p = editor_->path();
    if (p.isEmpty()) p = QFileDialog::getSaveFileName(this, tr("Save scenario"), {}, tr("Scenarios (*.yaml)"));
    if (p.isEmpty()) return;
    QFile f(p);
    if (f.open(QIODevice::WriteOnly | QIODevice::Text)) f.write(editor_->yaml().toUtf8());
    else statusBar()->showMessage(tr("%1: cannot write").arg(p));
  });
  file->addAction(tr("Open &trace…"), this, [this] {
    const QString p = QFileDialog::getOpenFileName(this, tr("Open predicted trace"), {}, tr("Chrome traces (*.json *.json.gz)"));
    if (!p.isEmpty()) open_trace(p, false);
  });
  file->addAction(tr("Open &measured trace (overlay)…"), this, [this] {
    const QString p = QFileDialog::getOpenFileName(this, tr("Open measured trace"), {}, tr("Chrome traces (*.json *.json.gz)"));
    if (!p.isEmpty()) open_trace(p, true);
  });
  file->addAction(tr("Open sweep &CSV…"), this, [this] {
    const QString p = QFileDialog::getOpenFileName(this, tr("Open sweep table"), {}, tr("CSV (*.csv)"));
    if (!p.isEmpty()) open_csv(p);
  });
  file->addSeparator();
  file->addAction(tr("&Export view (PNG/SVG)…"), this, [this] {
    const QString p = QFileDialog::getSaveFileName(this, tr("Export view"), {}, tr("PNG (*.png);;SVG (*.svg)"));
    QString err;
    if (!p.isEmpty() && !export_current(p, &err)) statusBar()->showMessage(err);
  });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run->addAction(tr("&Simulate current scenario"), this, [this] { run_simulate(); });
  run->addAction(tr("Simulate with the &analytic backend"), this, [this] { run_simulate("analytic"); });
  run->addAction(tr("&Plan layouts"), this, [this] {
    tabs_->setCurrentWidget(plan_);
    plan_->start();
  });
  run->addAction(tr("S&weep…"), this, &MainWindow::run_sweep);
  run->addAction(tr("&Cancel"), this, [this] {
    sweep_->cancel();
    plan_->cancel();
  });
}

bool MainWindow::open_path(const QString& path, const QStringList& overrides) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == "json" || path.endsWith(".json.gz", Qt::CaseInsensitive)) return open_trace(path, false);
  if (suffix == "csv") return open_csv(path);
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) {
    statusBar()->showMessage(tr("%1: cannot open").arg(path));
    return false;
  }
  editor_->set_yaml(QString::fromUtf8(f.readAll()), path);
  for (const QString& o : overrides) {
    const int eq = o.indexOf('=');
    if (eq > 0) editor_->set_field(o.left(eq), o.mid(eq + 1));
  }
  setWindowTitle(tr("hcpsim — %1").arg(QFileInfo(path).fileName()));
  return true;
}

bool MainWindow::open_trace(const QString& path, bool measured) {
  try {
    TimelineTrace t = load_chrome_trace(path.toStdString());
    (measured ? measured_ : predicted_) = std::move(t);
  } catch (const std::exception& e) {
    statusBar()->showMessage(QString::fromUtf8(e.what()));
    return false;
  }
  if (predicted_) timeline_->set_traces(*predicted_, measured_);
  else if (measured_) timeline_->set_traces(*measured_);
  if (predicted_ && measured_) chart_->show_predicted_vs_measured(*predicted_, *measured_);
  tabs_->setCurrentWidget(timeline_);
  return true;
}

bool MainWindow::open_csv(const QString& path) {
  try {
    const CsvTable t = load_csv(path);
    const ChartColumns c = guess_chart_columns(t);
    if (chart_->show_sweep(t, c, QFileInfo(path).fileName()) == 0) {
      statusBar()->showMessage(tr("%1: no numeric x/y columns").arg(path));
      return false;
    }
  } catch (const std::exception& e) {
    statusBar()->showMessage(QString::fromUtf8(e.what()));
    return false;
  }
  tabs_->setCurrentWidget(chart_);
  return true;
}

void MainWindow::on_scenario(std::shared_ptr<const Scenario> s) {
  scenario_ = std::move(s);
  plan_->set_scenario(scenario_);
  try {
    auto layout = std::make_shared<const RankLayout>(RankLayout::from_scenario(*scenario_));
    layout_->set_layout(layout);
    rank_model_->set_layout(layout);
    const bool hp = scenario_->hyperparallel_cp();
    if (scenario_->cp() > 1) {
      if (hp) hp_steps_->view()->set_scenario(*scenario_);
      else ring_->view()->set_params(RingStepModel::params_from(*scenario_));
    }
    steps_->setCurrentWidget(hp ? static_cast<QWidget*>(hp_steps_) : ring_);
    tabs_->setTabText(tabs_->indexOf(steps_), hp ? tr("HyperParallel steps") : tr("Ring steps"));
  } catch (const std::exception& e) {
    statusBar()->showMessage(QString::fromUtf8(e.what()));
  }
}

QWidget* MainWindow::current_view() const {
  QWidget* w = tabs_->currentWidget();
  if (w == steps_) return steps_->currentWidget() == hp_steps_ ? static_cast<QWidget*>(hp_steps_->view()) : ring_->view();
  if (w && w->isAncestorOf(layout_)) return layout_;
  return w;
}

bool MainWindow::export_current(const QString& path, QString* error) { return export_widget(current_view(), path, error); }

bool MainWindow::run_simulate(const QString& backend) {
  const std::shared_ptr<const Scenario> s = editor_->scenario();
  if (!s || editor_->diagnostics().has_errors()) {
    statusBar()->showMessage(tr("The scenario has errors; fix them before running."));
    return false;
  }
  if (predict_job_->running()) return false;
  auto outcome = std::make_shared<PredictionOutcome>();
  const std::string name = backend.toStdString();
  disconnect(predict_job_, &BackgroundJob::finished, this, nullptr);
  connect(predict_job_, &BackgroundJob::finished, this, [this, outcome, s, name](const QString& error) {
    if (error.isEmpty()) {
      summary_->set_summary(summarize(outcome->report));
      predicted_ = from_engine_trace(outcome->trace);
      timeline_->set_traces(*predicted_, measured_);
      tabs_->setCurrentWidget(summary_);
      statusBar()->showMessage(tr("predicted with the %1 backend").arg(QString::fromStdString(outcome->report.backend)));
      run_step_trace(s, name);
    } else {
      statusBar()->showMessage(error);
    }
    emit prediction_finished(error);
  });
  statusBar()->showMessage(tr("predicting…"));
  return predict_job_->start([outcome, s, name] { *outcome = default_predictor().predict(*s, name); });
}

void MainWindow::run_step_trace(std::shared_ptr<const Scenario> s, const std::string& backend) {
  if (step_job_->running()) return;
  auto trace = std::make_shared<Trace>();
  disconnect(step_job_, &BackgroundJob::finished, this, nullptr);
  connect(step_job_, &BackgroundJob::finished, this, [this, trace](const QString& error) {
    if (error.isEmpty()) step_timeline_->set_trace(*trace);
    else step_timeline_->set_message(tr("No whole-step timeline: %1").arg(error));
    emit step_trace_finished(error);
  });
  step_timeline_->set_message(tr("building the whole step…"));
  step_job_->start([trace, s, backend] { *trace = app::predict_step_trace(*s, backend); });
}

void MainWindow::run_sweep() {
  const QString p = QFileDialog::getOpenFileName(this, tr("Sweep file (or a scenario, then give the axes)"), {},
                                                 tr("YAML (*.yaml *.yml)"));
  if (p.isEmpty()) return;
  sweep_->set_file(p);
  tabs_->setCurrentWidget(sweep_);
  sweep_->start();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  for (const QUrl& u : e->mimeData()->urls())
    if (u.isLocalFile()) open_path(u.toLocalFile());
}

}  // namespace hcpsim::gui
