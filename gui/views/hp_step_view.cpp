#include "gui/views/hp_step_view.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

#include "gui/charts/colors.h"

namespace hcpsim::gui {
namespace {

constexpr double kMargin = 14;
constexpr double kHeader = 58;
constexpr double kFooter = 40;

QString mib(double bytes) { return QString::number(bytes / (1024.0 * 1024.0), 'f', bytes < 10 * 1048576.0 ? 2 : 1) + " MiB"; }

QString step_line(const HpStep& s) {
  QString t = QStringLiteral("%1 %2").arg(s.pass == Pass::Forward ? "F" : "B", QString::fromStdString(s.label));
  if (s.communication)
    t += QStringLiteral(" [%1 %2] %3/rank").arg(QString::fromLatin1(to_string(s.group)),
                                                 QString::fromLatin1(to_string(s.kind)), mib(s.bytes_per_rank));
  else if (s.flops > 0)
    t += QStringLiteral(" %1 GFLOP").arg(s.flops / 1e9, 0, 'f', 1);
  if (!s.overlaps.empty()) {
    QStringList o;
    for (const auto& l : s.overlaps) o << QString::fromStdString(l);
    t += QStringLiteral("  ∥ ") + o.join(QStringLiteral(", "));
  }
  return t;
}

void arrow(QPainter& p, QPointF a, QPointF b, double offset, double head) {
  const QPointF d = b - a;
  const double len = std::hypot(d.x(), d.y());
  if (len < 1) return;
  const QPointF u(d.x() / len, d.y() / len), n(-u.y(), u.x());
  const QPointF from = a + n * offset + u * head * 1.5, to = b + n * offset - u * head * 1.5;
  p.drawLine(from, to);
  QPolygonF tip;
  tip << to << to - u * head + n * head * 0.5 << to - u * head - n * head * 0.5;
  p.drawPolygon(tip);
}

}  // namespace

HpStepView::HpStepView(QWidget* parent) : ModelStepView(parent) { setMinimumSize(700, 420); }

void HpStepView::set_scenario(const Scenario& s) {
  show_model(std::make_unique<HpStepModel>(s));
}

QRectF HpStepView::member_rect(int cp_index) const {
  if (!model_) return {};
  const int cols = model_->ulysses(), rows = model_->colossal();
  const double w = width() * 0.58 - 2 * kMargin, h = height() - kHeader - kFooter - 30;
  const double cell = std::min({w / cols, h / rows, 170.0});
  const double x0 = kMargin + (w - cell * cols) / 2, y0 = kHeader + 24 + (h - cell * rows) / 2;
  return QRectF(x0 + model_->ds_index(cp_index) * cell, y0 + model_->co_index(cp_index) * cell, cell, cell)
      .adjusted(cell * 0.12, cell * 0.12, -cell * 0.12, -cell * 0.12);
}

void HpStepView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(rect(), background_color());
  drawn_groups_ = drawn_messages_ = drawn_step_rows_ = 0;
  if (!model_) {
    p.drawText(rect(), Qt::AlignCenter, tr("No HyperParallel CP group"));
    return;
  }
  const HpStep& s = model_->step(step());
  QFont f = font();
  f.setPixelSize(16);
  f.setBold(true);
  p.setFont(f);
  p.setPen(QColor(0x20, 0x20, 0x20));
  p.drawText(QPointF(kMargin, 22), QStringLiteral("HyperParallel %1, cp=%2 — step %3 of %4")
                                       .arg(QString::fromStdString(model_->title())).arg(model_->cp())
                                       .arg(step()).arg(model_->step_count()));
  f.setPixelSize(13);
  f.setBold(false);
  p.setFont(f);
  p.drawText(QPointF(kMargin, 44), QStringLiteral("%1 (%2, %3 stream)")
                                       .arg(step_line(s), QString::fromLatin1(to_string(s.pass)),
                                            QString::fromLatin1(to_string(s.stream))));
  paint_mesh(p);
  paint_step_list(p);
  f.setPixelSize(11);
  p.setFont(f);
  p.setPen(QColor(0x50, 0x50, 0x50));
  p.drawText(QRectF(kMargin, height() - kFooter + 4, width() - 2 * kMargin, kFooter - 6), Qt::TextWordWrap,
             tr("Rows: Colossal index co (K/V all-gather across a column: hp_colossal); columns: Ulysses index ds "
                "(all-to-all along a row: hp_ulysses). Outline = the step's group (kind colour), arrow = one message; "
                "∥ = compute steps that run while the collective is in flight."));
}

void HpStepView::paint_mesh(QPainter& p) {
  const HpStepModel& m = *model_;
  const HpStep& s = m.step(step());
  QFont f = font();
  const double cell = member_rect(0).width();
  f.setPixelSize(std::clamp(static_cast<int>(cell * 0.11), 8, 13));
  p.setFont(f);
  const QColor kind_col = task_kind_color(s.kind);
  for (int i = 0; i < m.cp(); ++i) {
    const QRectF r = member_rect(i);
    const bool active = s.tasks[static_cast<std::size_t>(i)] != kNone;
    p.setPen(QPen(QColor(0x60, 0x60, 0x60), 1));
    p.setBrush(active && !s.communication ? kind_col.lighter(130) : QColor(0xf4, 0xf4, 0xf0));
    p.drawRoundedRect(r, 6, 6);
    QString text = QStringLiteral("i=%1  r%2\nco %3 · ds %4").arg(i).arg(m.cp_ranks()[static_cast<std::size_t>(i)])
                       .arg(m.co_index(i)).arg(m.ds_index(i));
    if (const AttentionShape* a = m.attention(step(), i))
      text += QStringLiteral("\nQ %1 × KV %2\n%3/%4 heads").arg(a->q_len).arg(a->kv_len).arg(a->heads).arg(a->kv_heads);
    else if (active && !s.communication)
      text += QStringLiteral("\n%1").arg(QString::fromStdString(s.label));
    p.setPen(QColor(0x20, 0x20, 0x20));
    p.drawText(r.adjusted(3, 3, -3, -3), Qt::AlignCenter | Qt::TextWordWrap, text);
  }
  if (!s.communication) return;
  const QColor gcol = group_kind_color(s.group);
  for (const auto& g : s.groups) {
    if (g.empty()) continue;
    QRectF box = member_rect(g.front());
    for (int i : g) box = box.united(member_rect(i));
    p.setPen(QPen(gcol, 3));
    p.setBrush(Qt::NoBrush);
    p.drawRoundedRect(box.adjusted(-6, -6, 6, 6), 10, 10);
    ++drawn_groups_;
  }
  const double head = std::clamp(cell * 0.06, 4.0, 9.0);
  p.setPen(QPen(kind_col.darker(140), 1.5));
  p.setBrush(kind_col.darker(140));
  for (const HpMessage& msg : s.messages) {
    arrow(p, member_rect(msg.from).center(), member_rect(msg.to).center(), head * 0.6, head);
    ++drawn_messages_;
  }
}

void HpStepView::paint_step_list(QPainter& p) {
  const HpStepModel& m = *model_;
  const double x0 = width() * 0.58 + kMargin, w = width() - x0 - kMargin;
  const double y0 = kHeader + 10, avail = height() - kHeader - kFooter - 16;
  const double row = std::clamp(avail / m.step_count(), 6.0, 18.0);
  QFont f = font();
  f.setPixelSize(std::clamp(static_cast<int>(row * 0.72), 6, 12));
  p.setFont(f);
  for (int i = 0; i < m.step_count(); ++i) {
    const HpStep& s = m.step(i);
    const QRectF r(x0, y0 + i * row, w, row);
    if (i == step()) p.fillRect(r, QColor(0xff, 0xe9, 0x9e));
    if (i == m.forward_steps()) {
      p.setPen(QColor(0x90, 0x90, 0x90));
      p.drawLine(r.topLeft(), r.topRight());
    }
    p.fillRect(QRectF(x0 + (s.communication ? 14 : 2), r.y() + 1, 10, row - 2), task_kind_color(s.kind));
    p.setPen(QColor(0x20, 0x20, 0x20));
    p.drawText(r.adjusted(30, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, QStringLiteral("%1 ").arg(i) + step_line(s));
    ++drawn_step_rows_;
  }
}

}  // namespace hcpsim::gui
