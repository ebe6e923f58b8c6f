#pragma once
// What the plan and sweep panels share: one piece of work run in the background (background_job.h)
// with a Run and a Cancel button, a progress bar and a status line, and the flag that asks the work
// to stop. A panel lays the four widgets out, and says in start() what its work is and what it does
// with the result; the buttons, the bar and the finished signal follow the run here.
#include <QString>
#include <QWidget>
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>

class QLabel;
class QProgressBar;
class QPushButton;

namespace hcpsim::gui {

class BackgroundJob;

class RunPanel : public QWidget {
  Q_OBJECT
 public:
  ~RunPanel() override;   // asks a running work to stop (the job then waits for it)
  // Starts the panel's work in the background; false (and the reason in the status line when there
  // is one) while a run is under way or when the panel's input is bad.
  virtual bool start() = 0;
  // Asks the running work to stop, and says so in the status line; nothing when none runs.
  void cancel();
  bool running() const;
  QString status_text() const;

 signals:
  void run_finished(const QString& error);   // "" on success

 protected:
  // `run_text` labels the Run button, `idle_status` is the status line until the first run,
  // `cancel_status` the status line after Cancel.
  RunPanel(QWidget* parent, const QString& run_text, const QString& idle_status, const QString& cancel_status);
  QPushButton* run_button() const { return run_; }
  QPushButton* cancel_button() const { return cancel_; }
  QProgressBar* bar() const { return bar_; }
  QLabel* status() const { return status_; }
  void set_status(const QString& text);
  // A result shown: the bar full and `text` in the status line.
  void show_done(const QString& text);
  // Starts `work` on the worker thread with a fresh cancel flag: Run off, Cancel on, the bar busy and
  // `status` shown. When it ends the buttons and the bar are back; then `succeeded` runs (the work
  // returned) or the error goes to the status line, and run_finished follows.
  bool start_work(const QString& status, std::function<void(const std::atomic<bool>* cancel)> work,
                  std::function<void()> succeeded);
  // For the work's progress callback, from any thread: `done` of `total` on the bar, `text` in the
  // status line (shown on the panel's thread; dropped once the panel is gone).
  std::function<void(std::size_t done, std::size_t total, const QString& text)> progress();

 private:
  QPushButton* run_;
  QPushButton* cancel_;
  QProgressBar* bar_;
  QLabel* status_;
  QString cancel_status_;
  BackgroundJob* job_;
  std::shared_ptr<std::atomic<bool>> cancel_flag_;
};

}  // namespace hcpsim::gui
