#include "gui/views/run_panel.h"

#include <QApplication>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>

#include "gui/views/background_job.h"

namespace hcpsim::gui {

RunPanel::RunPanel(QWidget* parent, const QString& run_text, const QString& idle_status, const QString& cancel_status)
    : QWidget(parent), cancel_status_(cancel_status) {
  run_ = new QPushButton(run_text, this);
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setEnabled(false);
  bar_ = new QProgressBar(this);
  bar_->setRange(0, 1);
  bar_->setValue(0);
  status_ = new QLabel(idle_status, this);
  job_ = new BackgroundJob(this);
  connect(run_, &QPushButton::clicked, this, [this] { start(); });
  connect(cancel_, &QPushButton::clicked, this, &RunPanel::cancel);
}

RunPanel::~RunPanel() {
  if (cancel_flag_) cancel_flag_->store(true);
}

void RunPanel::cancel() {
  if (!cancel_flag_ || !running()) return;
  cancel_flag_->store(true);
  status_->setText(cancel_status_);
}

bool RunPanel::running() const { return job_->running(); }

QString RunPanel::status_text() const { return status_->text(); }

void RunPanel::set_status(const QString& text) { status_->setText(text); }

void RunPanel::show_done(const QString& text) {
  bar_->setRange(0, 1);
  bar_->setValue(1);
  status_->setText(text);
}

bool RunPanel::start_work(const QString& status, std::function<void(const std::atomic<bool>* cancel)> work,
                          std::function<void()> succeeded) {
  if (job_->running()) return false;
  cancel_flag_ = std::make_shared<std::atomic<bool>>(false);
  const auto flag = cancel_flag_;
  disconnect(job_, &BackgroundJob::finished, this, nullptr);
  connect(job_, &BackgroundJob::finished, this, [this, succeeded](const QString& error) {
    run_->setEnabled(true);
    cancel_->setEnabled(false);
    bar_->setRange(0, 1);
    bar_->setValue(error.isEmpty() ? 1 : 0);
    if (error.isEmpty()) succeeded();
    else status_->setText(error);
    emit run_finished(error);
  });
  run_->setEnabled(false);
  cancel_->setEnabled(true);
  bar_->setRange(0, 0);
  status_->setText(status);
  return job_->start([work, flag] { work(flag.get()); });
}

std::function<void(std::size_t, std::size_t, const QString&)> RunPanel::progress() {
  QPointer<RunPanel> self(this);
  return [self](std::size_t done, std::size_t total, const QString& text) {
    QMetaObject::invokeMethod(qApp, [self, done, total, text] {
      if (!self) return;
      self->bar_->setRange(0, static_cast<int>(total));
      self->bar_->setValue(static_cast<int>(done));
      self->status_->setText(text);
    });
  };
}

}  // namespace hcpsim::gui
