#include "gui/views/timeline_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <set>

#include "gui/charts/colors.h"

namespace hcpsim::gui {

QString format_bytes(double b) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (std::fabs(b) >= 1000 && u < 4) {
    b /= 1000;
    ++u;
  }
  return QString::number(b, 'g', 4) + " " + units[u];
}

QString format_flops(double f) {
  const char* units[] = {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP"};
  int u = 0;
  while (std::fabs(f) >= 1000 && u < 5) {
    f /= 1000;
    ++u;
  }
  return QString::number(f, 'g', 4) + " " + units[u];
}

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(480, 240);
}

void TimelineView::set_traces(TimelineTrace predicted, std::optional<TimelineTrace> measured) {
  pred_ = std::move(predicted);
  meas_ = std::move(measured);
  if (meas_) unify_lanes(pred_, *meas_);
  critical_ = critical_path(pred_);
  double b = pred_.begin_s, e = pred_.end_s;
  if (meas_ && !meas_->events.empty()) {
    b = std::min(b, meas_->begin_s);
    e = std::max(e, meas_->end_s);
  }
  const double pad = 0.02 * std::max(e - b, 1e-9);
  t0_ = b - pad;
  t1_ = e + pad;
  lane_offset_px_ = 0;
  update();
}

TimelineGeometry TimelineView::geometry() const { return TimelineGeometry(t0_, t1_, width()); }

void TimelineView::set_time_range(double t0_s, double t1_s) {
  t0_ = t0_s;
  t1_ = std::max(t1_s, t0_s + 1e-12);
  update();
}

QString TimelineView::tooltip_at(QPointF pt) const {
  const TimelineGeometry g = geometry();
  const QPointF shifted(pt.x(), pt.y() + lane_offset_px_);
  const bool two = meas_.has_value();
  for (int overlay = 0; overlay < (two ? 2 : 1); ++overlay) {
    const TimelineTrace& t = overlay == 0 ? pred_ : *meas_;
    auto hit = g.event_at(t, shifted, two, overlay);
    if (!hit) continue;
    const TimelineEvent& e = t.events[*hit];
    const auto& lane = t.lanes[static_cast<std::size_t>(e.lane)];
    QString s = QStringLiteral("<b>%1</b>%2<br>rank %3, stream %4<br>start %5, duration %6")
                    .arg(QString::fromStdString(e.name).toHtmlEscaped())
                    .arg(two ? (overlay == 0 ? " (predicted)" : " (measured)") : "")
                    .arg(lane.rank).arg(QString::fromStdString(lane.stream))
                    .arg(TimelineGeometry::format_time(e.start_s))
                    .arg(TimelineGeometry::format_time(e.end_s - e.start_s));
    s += QStringLiteral("<br>kind %1").arg(QString::fromLatin1(to_string(timeline_kind(e))));
    if (e.bytes > 0) s += QStringLiteral("<br>bytes %1").arg(format_bytes(e.bytes));
    if (e.flops > 0) {
      s += QStringLiteral("<br>FLOPs %1").arg(format_flops(e.flops));
      if (e.end_s > e.start_s) s += QStringLiteral(" (%1 TFLOP/s)").arg(e.flops / (e.end_s - e.start_s) / 1e12, 0, 'f', 1);
    }
    if (e.step >= 0) s += QStringLiteral("<br>step %1").arg(e.step);
    if (!e.peers.empty()) {
      QStringList peers;
      for (int r : e.peers) peers << QString::number(r);
      s += QStringLiteral("<br>peers %1").arg(peers.join(", "));
    }
    s += QStringLiteral("<br>task %1").arg(e.task);
    return s;
  }
  return {};
}

void TimelineView::paint_trace(QPainter& p, const TimelineGeometry& g, const TimelineTrace& t, int overlay, bool two) {
  const double top = TimelineGeometry::kAxisHeight;
  for (int lane = 0; lane < static_cast<int>(t.lanes.size()); ++lane) {
    const double ly = g.lane_top(lane) - lane_offset_px_;
    if (ly + TimelineGeometry::kLaneHeight < top || ly > height()) continue;
    const auto [lo, hi] = t.lane_range(lane);
    double last_px = -1e9;
    for (std::size_t i = lo; i < hi; ++i) {
      const TimelineEvent& e = t.events[i];
      if (e.end_s < g.t0_s() || e.start_s > g.t1_s()) continue;
      QRectF r = g.event_rect(e, two, overlay).translated(0, -lane_offset_px_);
      if (r.right() < TimelineGeometry::kLabelWidth) continue;
      if (r.left() < TimelineGeometry::kLabelWidth) r.setLeft(TimelineGeometry::kLabelWidth);
      if (r.width() <= 1.0 && std::floor(r.left()) == last_px) continue;   // same pixel column
      last_px = std::floor(r.left());
      QColor c = kind_color(timeline_kind(e));
      if (overlay == 1) c = c.lighter(135);
      p.setPen(r.width() > 4 ? QPen(c.darker(150), 0.8) : Qt::NoPen);
      p.setBrush(c);
      p.drawRect(r);
      if (r.width() > 60 && r.height() >= 12) {
        p.setPen(Qt::white);
        p.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                   p.fontMetrics().elidedText(QString::fromStdString(e.name), Qt::ElideRight, static_cast<int>(r.width() - 5)));
      }
    }
  }
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), background_color());
  const TimelineGeometry g = geometry();
  const bool two = meas_.has_value();
  const double top = TimelineGeometry::kAxisHeight;
  QFont f = font();
  f.setPixelSize(11);
  p.setFont(f);
  if (pred_.lanes.empty()) {
    p.setPen(QColor(0x40, 0x40, 0x40));
    p.drawText(rect(), Qt::AlignCenter, tr("No trace loaded (File ▸ Open trace, or run a simulation)"));
    return;
  }
  // Lane stripes and labels.
  p.save();
  p.setClipRect(QRectF(0, top, width(), height() - top));
  for (int lane = 0; lane < static_cast<int>(pred_.lanes.size()); ++lane) {
    const double y = g.lane_top(lane) - lane_offset_px_;
    if (y + TimelineGeometry::kLaneHeight < top || y > height()) continue;
    const auto& l = pred_.lanes[static_cast<std::size_t>(lane)];
    const bool first_of_rank = lane == 0 || pred_.lanes[static_cast<std::size_t>(lane - 1)].rank != l.rank;
    p.fillRect(QRectF(0, y, width(), TimelineGeometry::kLaneHeight), (l.rank % 2) ? QColor(0xf0, 0xf0, 0xeb) : background_color());
    if (first_of_rank) {
      p.setPen(QColor(0xb0, 0xb0, 0xa8));
      p.drawLine(QPointF(0, y), QPointF(width(), y));
    }
    p.setPen(QColor(0x30, 0x30, 0x30));
    p.drawText(QRectF(4, y, TimelineGeometry::kLabelWidth - 8, TimelineGeometry::kLaneHeight), Qt::AlignVCenter | Qt::AlignLeft,
               QStringLiteral("r%1 %2").arg(l.rank).arg(QString::fromStdString(l.stream)));
  }
  p.setClipRect(QRectF(TimelineGeometry::kLabelWidth, top, width() - TimelineGeometry::kLabelWidth, height() - top));
  paint_trace(p, g, pred_, 0, two);
  if (two) paint_trace(p, g, *meas_, 1, true);
  // Critical path of the predicted trace.
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(QColor(0xe0, 0x10, 0x10), 2.2));
  QPointF prev;
  for (std::size_t k = 0; k < critical_.size(); ++k) {
    const TimelineEvent& e = pred_.events[critical_[k]];
    const QRectF r = g.event_rect(e, two, 0).translated(0, -lane_offset_px_);
    p.drawRect(r.adjusted(-1, -1, 1, 1));
    if (k > 0) p.drawLine(prev, QPointF(r.left(), r.center().y()));
    prev = QPointF(r.right(), r.center().y());
  }
  p.restore();
  // Time axis.
  p.fillRect(QRectF(0, 0, width(), top), QColor(0xe4, 0xe4, 0xde));
  p.setPen(QColor(0x30, 0x30, 0x30));
  const double step = g.tick_step_s(std::max(2, width() / 110));
  for (double t = std::ceil(g.t0_s() / step) * step; t <= g.t1_s(); t += step) {
    const double x = g.x_of(t);
    if (x < TimelineGeometry::kLabelWidth) continue;
    p.drawLine(QPointF(x, top - 6), QPointF(x, top));
    p.drawText(QPointF(x + 2, top - 9), TimelineGeometry::format_time(std::fabs(t) < step * 1e-6 ? 0 : t));
  }
  const QString src = two ? tr("pred ▲ / meas ▼") : QString::fromStdString(pred_.source).section('/', -1);
  p.drawText(QRectF(4, 0, TimelineGeometry::kLabelWidth - 10, top), Qt::AlignVCenter | Qt::AlignLeft,
             p.fontMetrics().elidedText(src, Qt::ElideRight, static_cast<int>(TimelineGeometry::kLabelWidth - 10)));
  // Legend of the kinds present.
  std::set<int> kinds;
  for (const auto& e : pred_.events) kinds.insert(static_cast<int>(timeline_kind(e)));
  if (meas_)
    for (const auto& e : meas_->events) kinds.insert(static_cast<int>(timeline_kind(e)));
  double x = TimelineGeometry::kLabelWidth + 4;
  const double ly = height() - 16;
  p.fillRect(QRectF(0, ly - 4, width(), 20), QColor(0xfa, 0xfa, 0xf7, 230));
  for (int k : kinds) {
    const QString name = QString::fromLatin1(to_string(static_cast<MeasuredKind>(k)));
    p.fillRect(QRectF(x, ly, 10, 10), kind_color(static_cast<MeasuredKind>(k)));
    p.drawText(QPointF(x + 13, ly + 9), name);
    x += 22 + p.fontMetrics().horizontalAdvance(name);
  }
  if (!critical_.empty()) {
    p.setPen(QPen(QColor(0xe0, 0x10, 0x10), 2));
    p.drawRect(QRectF(x, ly, 10, 10));
    p.setPen(QColor(0x30, 0x30, 0x30));
    p.drawText(QPointF(x + 13, ly + 9), tr("critical path"));
  }
}

void TimelineView::wheelEvent(QWheelEvent* e) {
  TimelineGeometry g = geometry();
  g.zoom(std::pow(1.0015, e->angleDelta().y()), e->position().x());
  t0_ = g.t0_s();
  t1_ = g.t1_s();
  update();
  e->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* e) { drag_from_ = e->position(); }

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
  if (!(e->buttons() & Qt::LeftButton)) return;
  const QPointF d = e->position() - drag_from_;
  drag_from_ = e->position();
  TimelineGeometry g = geometry();
  g.pan(d.x());
  t0_ = g.t0_s();
  t1_ = g.t1_s();
  const double max_off = std::max(0.0, pred_.lanes.size() * TimelineGeometry::kLaneHeight - (height() - 60));
  lane_offset_px_ = std::clamp(lane_offset_px_ - d.y(), 0.0, max_off);
  update();
}

bool TimelineView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    const QString s = tooltip_at(he->pos());
    if (s.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(he->globalPos(), s, this);
    return true;
  }
  return QWidget::event(e);
}

}  // namespace hcpsim::gui
