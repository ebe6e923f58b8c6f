#include "gui/views/step_timeline_panel.h"

#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

#include "gui/models/summary_model.h"
#include "gui/models/timeline_trace.h"
#include "gui/views/timeline_view.h"

namespace hcpsim::gui {

StepTimelinePanel::StepTimelinePanel(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  label_ = new QLabel(tr("Run ▸ Simulate draws the whole training step here."), this);
  label_->setWordWrap(true);
  view_ = new TimelineView(this);
  v->addWidget(label_);
  v->addWidget(view_, 1);
}

void StepTimelinePanel::set_trace(const Trace& t) {
  double end_s = 0;
  for (const auto& e : t.events) end_s = std::max(end_s, e.end_s);
  label_->setText(tr("%1 — one training step, %2 (%3 backend): every pipeline stage and micro-batch, P2P "
                     "transfers, DP reduce-scatter / all-gather and the optimizer; first DP replica and TP rank. "
                     "Wheel zooms into one layer's ranks and streams.")
                      .arg(QString::fromStdString(t.scenario), format_seconds(end_s), QString::fromStdString(t.backend)));
  view_->set_traces(from_engine_trace(t));
  trace_ = t;
}

void StepTimelinePanel::set_message(const QString& text) { label_->setText(text); }

QString StepTimelinePanel::message() const { return label_->text(); }

}  // namespace hcpsim::gui
