#pragma once
// Timeline view: rank x stream lanes, events coloured by task kind, the critical path outlined in red,
// tooltips with bytes and FLOPs; a second (measured) trace is drawn on the lower half of each lane.
// Wheel zooms around the mouse, drag pans (horizontal: time, vertical: lanes).
#include <QWidget>
#include <optional>

#include "gui/models/timeline_geometry.h"
#include "gui/models/timeline_trace.h"

namespace hcpsim::gui {

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineView(QWidget* parent = nullptr);
  // Shows one trace, or a predicted and a measured one overlaid; resets zoom to the whole run.
  void set_traces(TimelineTrace predicted, std::optional<TimelineTrace> measured = std::nullopt);
  const TimelineTrace& predicted() const { return pred_; }
  bool has_measured() const { return meas_.has_value(); }
  const std::vector<std::size_t>& critical() const { return critical_; }
  TimelineGeometry geometry() const;
  // Shows [t0_s, t1_s].
  void set_time_range(double t0_s, double t1_s);
  // Tooltip text of the event under a widget point ("" when none).
  QString tooltip_at(QPointF p) const;
  QSize sizeHint() const override { return {1100, 600}; }

 protected:
  void paintEvent(QPaintEvent*) override;
  void wheelEvent(QWheelEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  bool event(QEvent* e) override;

 private:
  void paint_trace(QPainter& p, const TimelineGeometry& g, const TimelineTrace& t, int overlay, bool two);
  TimelineTrace pred_;
  std::optional<TimelineTrace> meas_;
  std::vector<std::size_t> critical_;
  double t0_ = 0, t1_ = 1;
  double lane_offset_px_ = 0;   // vertical scroll of the lanes
  QPointF drag_from_;
};

// "12.5 MB" / "3.1 GFLOP" style formatting used in tooltips.
QString format_bytes(double bytes);
QString format_flops(double flops);

}  // namespace hcpsim::gui
