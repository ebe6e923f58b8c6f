#pragma once
// The whole-step timeline: the trace of one training step (engine/app/step_trace.h: stages x
// micro-batches in 1F1B or interleaved order, P2P, DP reduce-scatter / all-gather, optimizer) on the
// timeline view, zoomable down to one layer's ranks and streams; a line above says what is shown,
// or why there is no step trace (the step graph's size limit, prefill, ...).
#include <QWidget>

#include "engine/trace/trace.h"

class QLabel;

namespace hcpsim::gui {

class TimelineView;

class StepTimelinePanel : public QWidget {
  Q_OBJECT
 public:
  explicit StepTimelinePanel(QWidget* parent = nullptr);
  void set_trace(const Trace& t);
  void set_message(const QString& text);   // no trace: why
  TimelineView* view() const { return view_; }
  QString message() const;
  const Trace& trace() const { return trace_; }   // the last trace shown

 private:
  Trace trace_;
  QLabel* label_;
  TimelineView* view_;
};

}  // namespace hcpsim::gui
