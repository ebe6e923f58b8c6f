#include "gui/views/ring_step_view.h"

#include <QPainter>
#include <algorithm>

#include "engine/schedule/schedule_descriptor.h"
#include "gui/charts/colors.h"

namespace hcpsim::gui {
namespace {

constexpr double kMargin = 14;
constexpr double kHeader = 52;
constexpr double kFooter = 72;

const char* section_name(MaskSection s) {
  switch (s) {
    case MaskSection::Diagonal: return "diagonal";
    case MaskSection::Lower: return "lower";
    case MaskSection::Upper: return "upper";
    case MaskSection::Full: return "full";
    case MaskSection::Causal: return "causal";
    case MaskSection::BottomRight: return "prefix";
  }
  return "?";
}

QColor owner_color(const RingStepModel& m, int owner) {
  if (owner == -2) return QColor(0x1f, 0xa8, 0x8f);
  return ring_position_color(owner, m.ring_size());
}

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

RingStepView::RingStepView(QWidget* parent) : ModelStepView(parent) {
  setMinimumSize(640, 400);
  setAutoFillBackground(false);
}

void RingStepView::set_params(const RingStepParams& p) {
  show_model(std::make_unique<RingStepModel>(p));
}

QRectF RingStepView::block_rect(int q, int k) const {
  if (!model_) return {};
  const int n = model_->chunks();
  const double avail_w = width() * 0.5 - 2 * kMargin - 30;
  const double avail_h = height() - kHeader - kFooter - 30;
  const double cell = std::max(2.0, std::min(avail_w, avail_h) / n);
  const double x0 = width() * 0.5 + kMargin + 30;
  const double y0 = kHeader + 24;
  return QRectF(x0 + k * cell, y0 + q * cell, cell, cell);
}

void RingStepView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(rect(), background_color());
  if (!model_) {
    p.drawText(rect(), Qt::AlignCenter, tr("No CP group (context_parallel_size = 1)"));
    return;
  }
  paint_header(p);
  paint_ranks(p);
  paint_matrix(p);
  paint_footer(p);
}

// Title: the schedule, cp, mask and step; how the sequence is cut.
void RingStepView::paint_header(QPainter& p) const {
  const RingStepModel& m = *model_;
  const auto& P = m.params();
  const int n = m.chunks();
  QFont f = font();
  f.setPixelSize(16);
  f.setBold(true);
  p.setFont(f);
  p.setPen(QColor(0x20, 0x20, 0x20));
  QString mode = QString::fromLatin1(to_string(P.type));
  if (schedule::schedule_of(P.type).hierarchical()) mode += QStringLiteral(" [%1,%2]").arg(P.a2a).arg(P.cp / P.a2a);
  p.drawText(QPointF(kMargin, 22), QStringLiteral("%1, cp=%2, %3 mask — step %4 of %5")
                                       .arg(mode).arg(P.cp).arg(P.causal ? "causal" : "no")
                                       .arg(step()).arg(m.step_count()));
  f.setPixelSize(12);
  f.setBold(false);
  p.setFont(f);
  p.drawText(QPointF(kMargin, 42), tr("Sequence cut into 2·cp = %1 chunks C0…C%2; CP index i starts with C_i and C_%3-i.")
                                       .arg(n).arg(n - 1).arg(n - 1));
}

// Left: per CP rank, the chunks it holds (upper half of a cell: Q, lower half: K/V).
void RingStepView::paint_ranks(QPainter& p) const {
  const RingStepModel& m = *model_;
  const auto& P = m.params();
  const int n = m.chunks();
  QFont f = font();
  const double left_w = width() * 0.5 - 2 * kMargin;
  const double label_w = 150;
  const double avail_rows = height() - kHeader - kFooter - 40;
  const double row_h = std::clamp(avail_rows / P.cp, 8.0, 34.0);
  const double cw = std::max(3.0, std::min((left_w - label_w) / n, 2 * row_h));
  double y = kHeader + 24;
  f.setPixelSize(std::clamp(static_cast<int>(row_h * 0.45), 8, 12));
  p.setFont(f);
  p.setPen(QColor(0x40, 0x40, 0x40));
  for (int k = 0; k < n && cw >= 14; ++k)
    p.drawText(QRectF(kMargin + label_w + k * cw, y - 16, cw, 14), Qt::AlignCenter, QStringLiteral("C%1").arg(k));
  for (int i = 0; i < P.cp; ++i, y += row_h) {
    const RankStep r = m.rank_step(i, step());
    const QColor own = owner_color(m, r.ring_pos);
    p.setPen(QColor(0x20, 0x20, 0x20));
    QString label = QStringLiteral("i=%1").arg(i);
    if (schedule::schedule_of(P.type).hierarchical()) label += QStringLiteral(" p=%1 a=%2").arg(r.ring_pos).arg(r.a2a_pos);
    if (r.kv_source >= 0) label += QStringLiteral(" ←%1 %2").arg(r.kv_source).arg(section_name(r.section));
    else label += QStringLiteral(" %1").arg(section_name(r.section));
    p.drawText(QRectF(kMargin, y, label_w - 4, row_h), Qt::AlignVCenter | Qt::AlignLeft, label);
    const QColor kv_col = r.kv_source >= 0 ? owner_color(m, r.kv_source) : QColor(0x90, 0x90, 0x90);
    for (int k = 0; k < n; ++k) {
      const QRectF cell(kMargin + label_w + k * cw, y + 1, cw - 1, row_h - 2);
      p.setPen(Qt::NoPen);
      p.setBrush(QColor(0xe6, 0xe6, 0xe2));
      p.drawRect(cell);
      const QRectF top(cell.x(), cell.y(), cell.width(), cell.height() / 2);
      const QRectF bottom(cell.x(), cell.center().y(), cell.width(), cell.height() / 2);
      if (contains(r.q_chunks, k)) {
        p.setBrush(contains(r.q_chunks_used, k) ? own : own.lighter(140));
        p.drawRect(top);
      }
      if (contains(r.kv_chunks_held, k)) {
        p.setBrush(contains(r.kv_chunks_used, k) ? kv_col.darker(115) : kv_col.lighter(150));
        p.drawRect(bottom);
      }
    }
  }
}

// Right: the block matrix, each block in the colour of the ring position and step that compute it.
void RingStepView::paint_matrix(QPainter& p) const {
  const RingStepModel& m = *model_;
  const int n = m.chunks();
  QFont f = font();
  const QRectF m0 = block_rect(0, 0);
  const double cell = m0.width();
  p.setPen(QColor(0x20, 0x20, 0x20));
  f.setPixelSize(12);
  p.setFont(f);
  p.drawText(QPointF(m0.x(), m0.y() - 8), tr("block matrix: query chunk (row) × key chunk (column)"));
  QFont small = f;
  small.setPixelSize(std::clamp(static_cast<int>(cell * 0.3), 7, 12));
  for (int q = 0; q < n; ++q) {
    for (int k = 0; k < n; ++k) {
      const QRectF r = block_rect(q, k).adjusted(0.5, 0.5, -0.5, -0.5);
      const BlockCell& c = m.cell(q, k);
      p.setPen(Qt::NoPen);
      p.setBrush(QColor(0xdd, 0xdd, 0xd8));   // masked / not computed
      p.drawRect(r);
      if (c.times == 0) continue;
      QColor col = owner_color(m, c.owner);
      if (c.step > step()) col = col.lighter(175);   // computed at a later step
      if (c.times > 1) col = Qt::black;             // would be a bug: computed twice
      p.setBrush(col);
      if (c.partial) {
        QPolygonF tri;
        tri << r.topLeft() << r.bottomLeft() << r.bottomRight();
        p.drawPolygon(tri);
      } else {
        p.drawRect(r);
      }
      if (c.step == step()) {
        p.setPen(QPen(QColor(0x10, 0x10, 0x10), std::max(1.0, cell / 14)));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(1, 1, -1, -1));
      }
      if (cell >= 26) {
        p.setFont(small);
        p.setPen(c.step > step() ? QColor(0x80, 0x80, 0x80) : QColor(0x10, 0x10, 0x10));
        const QString who = c.owner == -2 ? QStringLiteral("all") : QString::number(c.owner);
        p.drawText(c.partial ? r.adjusted(0, r.height() * 0.35, -r.width() * 0.35, 0) : r, Qt::AlignCenter,
                   QStringLiteral("%1·s%2").arg(who).arg(c.step));
      }
    }
  }
  p.setFont(f);
  p.setPen(QColor(0x40, 0x40, 0x40));
  for (int k = 0; k < n && cell >= 16; ++k) {
    p.drawText(QRectF(m0.x() + k * cell, m0.y() + n * cell + 2, cell, 14), Qt::AlignCenter, QString::number(k));
    p.drawText(QRectF(m0.x() - 28, m0.y() + k * cell, 24, cell), Qt::AlignRight | Qt::AlignVCenter, QString::number(k));
  }
}

// Footer: whether every needed block is computed exactly once, the blocks per position, the legend.
void RingStepView::paint_footer(QPainter& p) const {
  const RingStepModel& m = *model_;
  const auto& P = m.params();
  QFont f = font();
  const double fy = height() - kFooter + 8;
  const bool once = m.every_block_once();
  p.setPen(once ? QColor(0x1b, 0x7a, 0x2e) : QColor(0xc0, 0x20, 0x20));
  f.setBold(true);
  p.setFont(f);
  p.drawText(QPointF(kMargin, fy + 12), once ? tr("✓ every needed block is computed exactly once")
                                             : tr("✗ some block is computed twice or never"));
  f.setBold(false);
  p.setFont(f);
  p.setPen(QColor(0x20, 0x20, 0x20));
  QString bal = tr("blocks per %1:").arg(schedule::schedule_of(P.type).a2a == schedule::A2aLevel::WholeCp ? tr("rank (per head slice)") : tr("ring position"));
  if (schedule::schedule_of(P.type).a2a == schedule::A2aLevel::WholeCp) {
    bal += QStringLiteral(" every rank computes all %1 for its %2 of the heads").arg(m.blocks_of_owner(-2)).arg(QStringLiteral("1/%1").arg(P.cp));
  } else {
    for (int o = 0; o < m.ring_size(); ++o) bal += QStringLiteral(" %1").arg(m.blocks_of_owner(o));
  }
  p.drawText(QPointF(kMargin, fy + 30), bal);
  p.setPen(QColor(0x50, 0x50, 0x50));
  p.drawText(QRectF(kMargin, fy + 34, width() - 2 * kMargin, kFooter - 30), Qt::TextWordWrap,
             tr("Left: upper half of a cell = queries held (dark = used this step), lower half = K/V buffer (colour of "
                "its source). Right: colour = ring position that computes the block, s = step; faded = later step; "
                "outlined = this step; triangle = diagonal block (causal inside)."));
}

}  // namespace hcpsim::gui
