#include "gui/app/run_panel.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTimer>
#include <QVBoxLayout>

namespace hcpsim::gui {

bool parse_progress(const QString& text, int& done, int& total) {
  static const QRegularExpression re(QStringLiteral("(\\d+)\\s*/\\s*(\\d+)"));
  auto it = re.globalMatch(text);
  bool found = false;
  while (it.hasNext()) {
    const auto m = it.next();
    const int d = m.captured(1).toInt(), t = m.captured(2).toInt();
    if (t > 0 && d <= t) {
      done = d;
      total = t;
      found = true;
    }
  }
  return found;
}

RunPanel::RunPanel(QWidget* parent) : QWidget(parent), proc_(new QProcess(this)) {
  auto* v = new QVBoxLayout(this);
  auto* h = new QHBoxLayout;
  h->addWidget(new QLabel(tr("hcpsim"), this));
  args_ = new QLineEdit(this);
  args_->setObjectName("args");
  h->addWidget(args_, 1);
  run_ = new QPushButton(tr("Run"), this);
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setEnabled(false);
  h->addWidget(run_);
  h->addWidget(cancel_);
  v->addLayout(h);
  bar_ = new QProgressBar(this);
  bar_->setRange(0, 1);
  bar_->setValue(0);
  status_ = new QLabel(tr("idle"), this);
  v->addWidget(bar_);
  v->addWidget(status_);
  log_ = new QPlainTextEdit(this);
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(5000);
  v->addWidget(log_, 1);
  connect(run_, &QPushButton::clicked, this, [this] { start(); });
  connect(cancel_, &QPushButton::clicked, this, &RunPanel::cancel);
  connect(proc_, &QProcess::readyReadStandardOutput, this, &RunPanel::on_output);
  connect(proc_, &QProcess::readyReadStandardError, this, &RunPanel::on_output);
  connect(proc_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) {
      status_->setText(tr("could not start %1 (set HCPSIM_BIN)").arg(hcpsim_program()));
      run_->setEnabled(true);
      cancel_->setEnabled(false);
    }
  });
  connect(proc_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus st) {
    on_output();
    run_->setEnabled(true);
    cancel_->setEnabled(false);
    bar_->setRange(0, 1);
    bar_->setValue(st == QProcess::NormalExit && code == 0 ? 1 : 0);
    status_->setText(st == QProcess::CrashExit ? tr("stopped") : tr("finished, exit code %1").arg(code));
    emit finished(st == QProcess::NormalExit ? code : -1, stdout_);
  });
}

QString RunPanel::hcpsim_program() {
  const QString env = qEnvironmentVariable("HCPSIM_BIN");
  if (!env.isEmpty()) return env;
  const QDir here(QCoreApplication::applicationDirPath());
  for (const QString& rel : {QStringLiteral("hcpsim"), QStringLiteral("../cli/hcpsim"), QStringLiteral("../../cli/hcpsim")}) {
    const QFileInfo fi(here.filePath(rel));
    if (fi.isFile() && fi.isExecutable()) return fi.canonicalFilePath();
  }
  const QString onpath = QStandardPaths::findExecutable(QStringLiteral("hcpsim"));
  return onpath.isEmpty() ? QStringLiteral("hcpsim") : onpath;
}

void RunPanel::prepare_sweep(const QString& sweep_file) {
  args_->setText(QStringLiteral("sweep %1").arg(sweep_file));
}

void RunPanel::set_arguments(const QString& line) { args_->setText(line); }

bool RunPanel::start() {
  if (running()) return false;
  stdout_.clear();
  log_->clear();
  const QStringList args = QProcess::splitCommand(args_->text());
  bar_->setRange(0, 0);   // busy until the child reports progress
  status_->setText(tr("running %1 %2").arg(hcpsim_program(), args_->text()));
  run_->setEnabled(false);
  cancel_->setEnabled(true);
  proc_->start(hcpsim_program(), args);
  return true;
}

void RunPanel::cancel() {
  if (!running()) return;
  status_->setText(tr("cancelling…"));
  proc_->terminate();
  QTimer::singleShot(2000, proc_, [p = proc_] {
    if (p->state() != QProcess::NotRunning) p->kill();
  });
}

QString RunPanel::output() const { return log_->toPlainText(); }

void RunPanel::on_output() {
  const QString out = QString::fromUtf8(proc_->readAllStandardOutput());
  const QString err = QString::fromUtf8(proc_->readAllStandardError());
  stdout_ += out;
  if (!out.isEmpty()) log_->appendPlainText(out.trimmed());
  if (!err.isEmpty()) {
    log_->appendPlainText(err.trimmed());
    int done = 0, total = 0;
    if (parse_progress(err, done, total)) {
      bar_->setRange(0, total);
      bar_->setValue(done);
    }
  }
}

}  // namespace hcpsim::gui
