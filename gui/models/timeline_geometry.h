#pragma once
// Timeline geometry: the mapping between time and x, lane and y, and hit-testing, for one or two
// overlaid traces (predicted on the upper half of each lane, measured on the lower half).
//
//   label column | t0 ............................................ t1
//   rank 0 main  | [attn s0][attn s2]  [merge]
//   rank 0 cp    |          [attn s1]
//   rank 0 p2p   | [send/recv s0][send/recv s1]
#include <QPointF>
#include <QRectF>
#include <optional>

#include "gui/models/timeline_trace.h"

namespace hcpsim::gui {

class TimelineGeometry {
 public:
  static constexpr double kLabelWidth = 120;   // px of the lane-label column
  static constexpr double kLaneHeight = 22;    // px per lane
  static constexpr double kAxisHeight = 24;    // px of the time axis at the top

  // Shows [t0_s, t1_s] (t1 > t0) across `width_px` (> kLabelWidth).
  TimelineGeometry(double t0_s, double t1_s, double width_px);

  double t0_s() const { return t0_; }
  double t1_s() const { return t1_; }
  double width_px() const { return width_; }
  double x_of(double t_s) const;               // px
  double t_of(double x_px) const;              // s
  double lane_top(int lane) const { return kAxisHeight + lane * kLaneHeight; }
  int lane_at(double y_px) const;              // -1 above the first lane
  // Rectangle of an event; `overlay` = which half of the lane (0 upper/only, 1 lower) when two traces
  // are shown, `two_traces` = whether lanes are split.
  QRectF event_rect(const TimelineEvent& e, bool two_traces = false, int overlay = 0) const;
  // Index of the event of `t` under point p (lane by y, then by time), if any.
  std::optional<std::size_t> event_at(const TimelineTrace& t, QPointF p, bool two_traces = false,
                                      int overlay = 0) const;
  // Zoom by `factor` (> 1 zooms in) keeping the time under x_px fixed.
  void zoom(double factor, double x_px);
  // Pan by dx_px (positive moves the view to earlier times).
  void pan(double dx_px);
  // "1.25 ms" style label with a unit picked for the span of the view.
  static QString format_time(double t_s);
  // Tick step (s) giving about `target` ticks over the visible span: 1, 2 or 5 times a power of ten.
  double tick_step_s(int target = 8) const;

 private:
  double t0_, t1_, width_;
};

}  // namespace hcpsim::gui
