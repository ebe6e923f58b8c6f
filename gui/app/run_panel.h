#pragma once
// Runs `hcpsim sweep` (or another hcpsim command line) in a child process (QProcess): the window stays responsive,
// progress ("12/40" in the child's output) drives a progress bar, Cancel terminates the child.
#include <QProcess>
#include <QWidget>

class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QLabel;

namespace hcpsim::gui {

class RunPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RunPanel(QWidget* parent = nullptr);
  // The hcpsim executable: $HCPSIM_BIN, next to hcpsim-gui, ../cli/hcpsim (build tree), else PATH.
  static QString hcpsim_program();
  // Prepares `sweep SWEEP_FILE`; the user may edit the line before Run.
  void prepare_sweep(const QString& sweep_file);
  // Replaces the argument line (split like a shell would, see QProcess::splitCommand).
  void set_arguments(const QString& line);
  // Starts the child with the current argument line; false when one is already running.
  bool start();
  void cancel();
  bool running() const { return proc_->state() != QProcess::NotRunning; }
  QString output() const;

 signals:
  // The child ended; exit code and its whole stdout.
  void finished(int exit_code, const QString& stdout_text);

 private:
  void on_output();
  QProcess* proc_;
  QLineEdit* args_;
  QPlainTextEdit* log_;
  QProgressBar* bar_;
  QPushButton* run_;
  QPushButton* cancel_;
  QLabel* status_;
  QString stdout_;
};

// Parses "done/total" progress from a chunk of child output; returns false when none is found.
bool parse_progress(const QString& text, int& done, int& total);

}  // namespace hcpsim::gui
