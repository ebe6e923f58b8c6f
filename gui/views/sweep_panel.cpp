#include "gui/views/sweep_panel.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "gui/views/chart_view.h"

namespace hcpsim::gui {

SweepPanel::SweepPanel(QWidget* parent)
    : RunPanel(parent, tr("Sweep"), tr("The points of a sweep, predicted in this process as `hcpsim sweep` predicts each."),
               tr("cancelling after the point that runs…")) {
  model_ = new SweepTableModel(this);
  auto* v = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  file_ = new QLineEdit(this);
  file_->setObjectName("sweep.file");
  file_->setPlaceholderText(tr("sweep file, or a scenario with the axes on the right"));
  auto* browse = new QPushButton(tr("…"), this);
  vary_ = new QLineEdit(this);
  vary_->setObjectName("sweep.vary");
  vary_->setPlaceholderText(tr("axes: model.context_parallel_size=2,4,8 …"));
  row->addWidget(file_, 2);
  row->addWidget(browse);
  row->addWidget(vary_, 3);
  row->addWidget(run_button());
  row->addWidget(cancel_button());
  v->addLayout(row);
  v->addWidget(bar());
  v->addWidget(status());
  auto* split = new QSplitter(this);
  table_ = new QTableView(split);
  table_->setModel(model_);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  chart_ = new ChartView(split);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  v->addWidget(split, 1);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString p = QFileDialog::getOpenFileName(this, tr("Sweep file or scenario"), {}, tr("YAML (*.yaml *.yml)"));
    if (!p.isEmpty()) set_file(p);
  });
}

void SweepPanel::set_file(const QString& path) { file_->setText(path); }

void SweepPanel::set_vary(const QString& line) { vary_->setText(line); }

bool SweepPanel::start() {
  if (running()) return false;
  planning::SweepSpec spec;
  try {
    spec = app::sweep_spec(file_->text().trimmed().toStdString(), split_axes(vary_->text()));
  } catch (const std::exception& e) {
    set_status(QString::fromUtf8(e.what()));
    return false;
  }
  auto progress = [show = this->progress()](std::size_t done, std::size_t total) {
    show(done, total, tr("%1 of %2 points").arg(done).arg(total));
  };
  auto run = std::make_shared<app::SweepRun>();
  return start_work(
      tr("sweeping %1…").arg(QString::fromStdString(spec.base_path)),
      [run, spec, progress](const std::atomic<bool>* cancel) { *run = app::sweep_points(spec, progress, cancel); },
      [this, run] { show_run(std::move(*run)); });
}

void SweepPanel::show_run(app::SweepRun run) {
  std::size_t ok = 0;
  for (const planning::PointResult& r : run.results) ok += r.status == planning::PointStatus::Ok;
  show_done(tr("%1 points: %2 predicted, %3 invalid or failed (hover a row for its message)")
                .arg(run.results.size()).arg(ok).arg(run.results.size() - ok));
  model_->set_run(std::move(run));
  chart_->show_chart(sweep_chart_data(model_->run()));
}

}  // namespace hcpsim::gui
