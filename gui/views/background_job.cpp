#include "gui/views/background_job.h"

#include <QThread>
#include <exception>
#include <memory>

namespace hcpsim::gui {

BackgroundJob::BackgroundJob(QObject* parent) : QObject(parent) {}

BackgroundJob::~BackgroundJob() {
  if (thread_) {
    thread_->wait();
    delete thread_;
  }
}

bool BackgroundJob::start(std::function<void()> work) {
  if (thread_) return false;
  auto error = std::make_shared<QString>();
  thread_ = QThread::create([work = std::move(work), error] {
    try {
      work();
    } catch (const std::exception& e) {
      *error = QString::fromUtf8(e.what());
      if (error->isEmpty()) *error = QStringLiteral("failed");
    }
  });
  connect(thread_, &QThread::finished, this, [this, error] {
    thread_->deleteLater();
    thread_ = nullptr;
    emit finished(*error);
  });
  thread_->start();
  return true;
}

}  // namespace hcpsim::gui
