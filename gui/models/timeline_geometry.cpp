#include "gui/models/timeline_geometry.h"

#include <QString>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hcpsim::gui {

TimelineGeometry::TimelineGeometry(double t0_s, double t1_s, double width_px)
    : t0_(t0_s), t1_(t1_s), width_(width_px) {
  if (!(t1_ > t0_)) t1_ = t0_ + 1e-6;
  if (width_ < kLabelWidth + 10) width_ = kLabelWidth + 10;
}

double TimelineGeometry::x_of(double t_s) const {
  return kLabelWidth + (t_s - t0_) / (t1_ - t0_) * (width_ - kLabelWidth);
}

double TimelineGeometry::t_of(double x_px) const {
  return t0_ + (x_px - kLabelWidth) / (width_ - kLabelWidth) * (t1_ - t0_);
}

int TimelineGeometry::lane_at(double y_px) const {
  if (y_px < kAxisHeight) return -1;
  return static_cast<int>((y_px - kAxisHeight) / kLaneHeight);
}

QRectF TimelineGeometry::event_rect(const TimelineEvent& e, bool two_traces, int overlay) const {
  const double x0 = x_of(e.start_s);
  const double w = std::max(1.0, x_of(e.end_s) - x0);   // never thinner than one pixel
  double y = lane_top(e.lane) + 2;
  double h = kLaneHeight - 4;
  if (two_traces) {
    h = (kLaneHeight - 4) / 2;
    y += overlay * h;
  }
  return QRectF(x0, y, w, h);
}

std::optional<std::size_t> TimelineGeometry::event_at(const TimelineTrace& t, QPointF p, bool two_traces,
                                                      int overlay) const {
  const int lane = lane_at(p.y());
  if (lane < 0 || lane >= static_cast<int>(t.lanes.size()) || p.x() < kLabelWidth) return std::nullopt;
  const auto [lo, hi] = t.lane_range(lane);
  const double tp = t_of(p.x());
  const double slack = (t1_ - t0_) / (width_ - kLabelWidth);   // one pixel of time
  // Events of a lane are sorted by start: scan back from the first one starting after the point.
  auto first = t.events.begin() + static_cast<long>(lo);
  auto last = t.events.begin() + static_cast<long>(hi);
  auto it = std::upper_bound(first, last, tp + slack, [](double x, const TimelineEvent& e) { return x < e.start_s; });
  while (it != first) {
    --it;
    if (event_rect(*it, two_traces, overlay).adjusted(-0.5, 0, 0.5, 0).contains(p))
      return static_cast<std::size_t>(it - t.events.begin());
    if (it->end_s + slack < tp) break;   // lanes rarely overlap: earlier events end earlier
  }
  return std::nullopt;
}

void TimelineGeometry::zoom(double factor, double x_px) {
  if (factor <= 0) return;
  const double anchor = t_of(x_px);
  const double span = (t1_ - t0_) / factor;
  const double frac = (x_px - kLabelWidth) / (width_ - kLabelWidth);
  t0_ = anchor - frac * span;
  t1_ = t0_ + std::max(span, 1e-12);
}

void TimelineGeometry::pan(double dx_px) {
  const double dt = dx_px / (width_ - kLabelWidth) * (t1_ - t0_);
  t0_ -= dt;
  t1_ -= dt;
}

QString TimelineGeometry::format_time(double t_s) {
  const double a = std::fabs(t_s);
  if (a == 0) return QStringLiteral("0");
  if (a >= 1) return QString::number(t_s, 'g', 4) + " s";
  if (a >= 1e-3) return QString::number(t_s * 1e3, 'g', 4) + " ms";
  if (a >= 1e-6) return QString::number(t_s * 1e6, 'g', 4) + QStringLiteral(" µs");
  return QString::number(t_s * 1e9, 'g', 4) + " ns";
}

double TimelineGeometry::tick_step_s(int target) const {
  const double raw = (t1_ - t0_) / std::max(1, target);
  const double p10 = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p10 >= raw) return m * p10;
  return 10 * p10;
}

}  // namespace hcpsim::gui
