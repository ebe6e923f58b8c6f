#include "gui/views/sweep_panel.h"

#include <QApplication>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "gui/views/background_job.h"
#include "gui/views/chart_view.h"

namespace hcpsim::gui {

SweepPanel::SweepPanel(QWidget* parent) : QWidget(parent) {
  model_ = new SweepTableModel(this);
  job_ = new BackgroundJob(this);
  auto* v = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  file_ = new QLineEdit(this);
  file_->setObjectName("sweep.file");
  file_->setPlaceholderText(tr("sweep file, or a scenario with the axes on the right"));
  auto* browse = new QPushButton(tr("…"), this);
  vary_ = new QLineEdit(this);
  vary_->setObjectName("sweep.vary");
  vary_->setPlaceholderText(tr("axes: model.context_parallel_size=2,4,8 …"));
  run_ = new QPushButton(tr("Sweep"), this);
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setEnabled(false);
  row->addWidget(file_, 2);
  row->addWidget(browse);
  row->addWidget(vary_, 3);
  row->addWidget(run_);
  row->addWidget(cancel_);
  v->addLayout(row);
  bar_ = new QProgressBar(this);
  bar_->setRange(0, 1);
  bar_->setValue(0);
  status_ = new QLabel(tr("The points of a sweep, predicted in this process as `hcpsim sweep` predicts each."), this);
  v->addWidget(bar_);
  v->addWidget(status_);
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
  connect(run_, &QPushButton::clicked, this, [this] { start(); });
  connect(cancel_, &QPushButton::clicked, this, &SweepPanel::cancel);
}

SweepPanel::~SweepPanel() {
  if (cancel_flag_) cancel_flag_->store(true);
}

void SweepPanel::set_file(const QString& path) { file_->setText(path); }

void SweepPanel::set_vary(const QString& line) { vary_->setText(line); }

void SweepPanel::cancel() {
  if (cancel_flag_ && running()) {
    cancel_flag_->store(true);
    status_->setText(tr("cancelling after the point that runs…"));
  }
}

bool SweepPanel::running() const { return job_->running(); }

QString SweepPanel::status_text() const { return status_->text(); }

bool SweepPanel::start() {
  if (job_->running()) return false;
  planning::SweepSpec spec;
  try {
    spec = app::sweep_spec(file_->text().trimmed().toStdString(), split_axes(vary_->text()));
  } catch (const std::exception& e) {
    status_->setText(QString::fromUtf8(e.what()));
    return false;
  }
  cancel_flag_ = std::make_shared<std::atomic<bool>>(false);
  QPointer<SweepPanel> self(this);
  auto progress = [self](std::size_t done, std::size_t total) {
    QMetaObject::invokeMethod(qApp, [self, done, total] {
      if (!self) return;
      self->bar_->setRange(0, static_cast<int>(total));
      self->bar_->setValue(static_cast<int>(done));
      self->status_->setText(tr("%1 of %2 points").arg(done).arg(total));
    });
  };
  auto run = std::make_shared<app::SweepRun>();
  const auto flag = cancel_flag_;
  disconnect(job_, &BackgroundJob::finished, this, nullptr);
  connect(job_, &BackgroundJob::finished, this, [this, run](const QString& error) { finish(error, run); });
  run_->setEnabled(false);
  cancel_->setEnabled(true);
  bar_->setRange(0, 0);
  status_->setText(tr("sweeping %1…").arg(QString::fromStdString(spec.base_path)));
  return job_->start([run, spec, progress, flag] { *run = app::sweep_points(spec, progress, flag.get()); });
}

void SweepPanel::finish(const QString& error, std::shared_ptr<app::SweepRun> run) {
  run_->setEnabled(true);
  cancel_->setEnabled(false);
  bar_->setRange(0, 1);
  bar_->setValue(error.isEmpty() ? 1 : 0);
  if (!error.isEmpty()) {
    status_->setText(error);
    emit sweep_finished(error);
    return;
  }
  std::size_t ok = 0;
  for (const planning::PointResult& r : run->results) ok += r.status == planning::PointStatus::Ok;
  status_->setText(tr("%1 points: %2 predicted, %3 invalid or failed (hover a row for its message)")
                       .arg(run->results.size()).arg(ok).arg(run->results.size() - ok));
  model_->set_run(std::move(*run));
  chart_->show_chart(sweep_chart_data(model_->run()));
  emit sweep_finished(QString());
}

}  // namespace hcpsim::gui
