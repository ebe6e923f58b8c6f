#pragma once
// One piece of work on a worker thread (QThread::create) while the event loop turns; `finished`
// arrives on the owner's thread with the exception's message, or "" when the work returned.
#include <QObject>
#include <QString>
#include <functional>

class QThread;

namespace hcpsim::gui {

class BackgroundJob : public QObject {
  Q_OBJECT
 public:
  explicit BackgroundJob(QObject* parent = nullptr);
  ~BackgroundJob() override;   // waits for a running job
  // Starts `work`; false when a job is already running.
  bool start(std::function<void()> work);
  bool running() const { return thread_ != nullptr; }

 signals:
  void finished(const QString& error);

 private:
  QThread* thread_ = nullptr;
};

}  // namespace hcpsim::gui
