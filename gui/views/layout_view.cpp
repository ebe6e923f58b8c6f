#include "gui/views/layout_view.h"

#include <QGraphicsItem>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QStyleOptionGraphicsItem>
#include <QToolTip>
#include <QWheelEvent>
#include <cmath>

#include "gui/charts/colors.h"
#include "gui/models/rank_table_model.h"

namespace hcpsim::gui {
namespace {

// Kinds whose membership is outlined when a GPU is clicked, outermost first.
const GroupKind kOutlined[] = {GroupKind::TP,      GroupKind::CP,      GroupKind::DP,         GroupKind::PP,
                               GroupKind::HCP_A2A, GroupKind::HCP_P2P, GroupKind::HP_ULYSSES, GroupKind::HP_COLOSSAL};

QColor cell_color(const LayoutPaintState& s, int rank) {
  const GroupKind k = group_kind_for(s.color_by, *s.layout);
  return group_index_color(s.layout->group_index_of(k, rank));
}

bool dimmed(const LayoutPaintState& s, int rank) {
  if (s.selected < 0) return false;
  for (const auto& v : s.in_group)
    if (!v.empty() && v[static_cast<std::size_t>(rank)]) return false;
  return true;
}

// One node frame and its GPU cells.
class NodeItem : public QGraphicsItem {
 public:
  NodeItem(std::shared_ptr<LayoutPaintState> s, int node) : s_(std::move(s)), node_(node) {
    setFlag(ItemUsesExtendedStyleOption);
  }
  QRectF boundingRect() const override { return s_->geometry.node_rect(node_).adjusted(-1, -1, 1, 1); }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* opt, QWidget*) override {
    const double lod = opt->levelOfDetailFromTransform(p->worldTransform());
    const auto& g = s_->geometry;
    const QRectF frame = g.node_rect(node_);
    p->setPen(lod > 0.3 ? QPen(QColor(0x70, 0x70, 0x70), 1) : Qt::NoPen);
    p->setBrush(QColor(0xe8, 0xe8, 0xe4));
    p->drawRoundedRect(frame, 4, 4);
    if (lod > 0.45) {
      QFont f = p->font();
      f.setPixelSize(11);
      p->setFont(f);
      p->setPen(QColor(0x30, 0x30, 0x30));
      p->drawText(frame.adjusted(6, 1, -4, 0), Qt::AlignLeft | Qt::AlignTop, QStringLiteral("node %1").arg(node_));
    }
    const int gpn = g.gpus_per_node();
    for (int gpu = 0; gpu < gpn; ++gpu) {
      const int rank = node_ * gpn + gpu;
      const QRectF cell = g.gpu_rect(rank);
      QColor c = cell_color(*s_, rank);
      if (dimmed(*s_, rank)) c = c.lighter(170);
      p->setPen(lod > 0.6 ? QPen(QColor(0x40, 0x40, 0x40), 0.8) : Qt::NoPen);
      p->setBrush(c);
      p->drawRect(cell);
      if (s_->selected >= 0) {
        int ring = 0;
        for (GroupKind k : kOutlined) {
          const auto& v = s_->in_group[static_cast<std::size_t>(k)];
          if (v.empty() || !v[static_cast<std::size_t>(rank)]) continue;
          p->setPen(QPen(group_kind_color(k), 2.2));
          p->setBrush(Qt::NoBrush);
          p->drawRect(cell.adjusted(1.2 + 2.4 * ring, 1.2 + 2.4 * ring, -1.2 - 2.4 * ring, -1.2 - 2.4 * ring));
          ++ring;
        }
        if (rank == s_->selected) {
          p->setPen(QPen(Qt::black, 3));
          p->setBrush(Qt::NoBrush);
          p->drawRect(cell.adjusted(-2, -2, 2, 2));
        }
      }
      if (lod > 0.9) {
        QFont f = p->font();
        f.setPixelSize(10);
        p->setFont(f);
        p->setPen(c.lightness() > 140 ? Qt::black : Qt::white);
        p->drawText(cell, Qt::AlignCenter, QString::number(rank));
      }
    }
  }

 private:
  std::shared_ptr<LayoutPaintState> s_;
  int node_;
};

// Every ring hop rank -> ring_next(rank) as a bent arrow (bent to the left of its direction, so the two
// directions of a 2-ring do not overlap).
class RingItem : public QGraphicsItem {
 public:
  explicit RingItem(std::shared_ptr<LayoutPaintState> s) : s_(std::move(s)), edges_(ring_edges(*s_->layout)) {
    setFlag(ItemUsesExtendedStyleOption);
    setZValue(1);
  }
  QRectF boundingRect() const override { return s_->geometry.bounds().adjusted(-40, -40, 40, 40); }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* opt, QWidget*) override {
    // HyperParallel has no ring: its second level is an all-gather (coloured by "Ring", no arrows).
    if (!s_->show_rings || edges_.empty() || s_->layout->hyperparallel()) return;
    const double lod = opt->levelOfDetailFromTransform(p->worldTransform());
    const auto& g = s_->geometry;
    const auto ring_kind = s_->layout->hierarchical() ? GroupKind::HCP_P2P : GroupKind::CP;
    const auto& sel = s_->selected >= 0 ? s_->in_group[static_cast<std::size_t>(ring_kind)] : std::vector<bool>{};
    const QRectF visible = opt->exposedRect.adjusted(-60, -60, 60, 60);
    for (const auto& [a, b] : edges_) {
      const QPointF pa = g.gpu_center(a), pb = g.gpu_center(b);
      if (!visible.contains(pa) && !visible.contains(pb)) continue;
      const bool highlighted = !sel.empty() && sel[static_cast<std::size_t>(a)];
      // Zoomed out on a big cluster, thousands of arrows are noise: only the selected ring's remain.
      if (lod < 0.25 && !highlighted && edges_.size() > 256) continue;
      QColor c = QColor(0x20, 0x20, 0x20);
      c.setAlpha(s_->selected >= 0 && !highlighted ? 50 : 190);
      const QLineF line(pa, pb);
      const double len = line.length();
      if (len < 1e-6) continue;
      const QPointF dir = (pb - pa) / len;
      const QPointF normal(dir.y(), -dir.x());
      const double bend = std::min(40.0, 0.18 * len);
      const QPointF ctrl = (pa + pb) / 2 + normal * bend;
      // Shorten so the arrow stops at the cell edge.
      const double r = LayoutGeometry::kGpuSize * 0.45;
      const QPointF start = pa + (ctrl - pa) / QLineF(pa, ctrl).length() * r;
      const QPointF end = pb + (ctrl - pb) / QLineF(pb, ctrl).length() * r;
      QPen pen(c, highlighted ? 2.6 : (lod > 0.3 ? 1.4 : 0));
      p->setPen(pen);
      p->setBrush(Qt::NoBrush);
      if (lod < 0.25 && !highlighted) {
        p->drawLine(start, end);
        continue;
      }
      QPainterPath path(start);
      path.quadTo(ctrl, end);
      p->drawPath(path);
      // Arrow head along the curve's end tangent.
      const QPointF tan = end - ctrl;
      const double tl = std::hypot(tan.x(), tan.y());
      if (tl < 1e-6) continue;
      const QPointF u = tan / tl, n(u.y(), -u.x());
      const double h = highlighted ? 9 : 7;
      QPolygonF head;
      head << end << end - u * h + n * (h * 0.45) << end - u * h - n * (h * 0.45);
      p->setPen(Qt::NoPen);
      p->setBrush(c);
      p->drawPolygon(head);
    }
  }

 private:
  std::shared_ptr<LayoutPaintState> s_;
  std::vector<std::pair<int, int>> edges_;
};

}  // namespace

LayoutView::LayoutView(QWidget* parent)
    : QGraphicsView(parent), state_(std::make_shared<LayoutPaintState>()), scene_(new QGraphicsScene(this)) {
  setScene(scene_);
  setRenderHint(QPainter::Antialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setBackgroundBrush(background_color());
  setMouseTracking(true);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);   // drag pans, wheel zooms
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setMinimumSize(320, 240);
}

void LayoutView::set_layout(std::shared_ptr<const RankLayout> layout) {
  scene_->clear();
  state_->layout = std::move(layout);
  state_->selected = -1;
  state_->in_group.assign(kGroupKindCount, {});
  if (!state_->layout) return;
  const auto& L = *state_->layout;
  state_->geometry = LayoutGeometry::build(L.nodes(), L.gpus_per_node());
  for (int n = 0; n < L.nodes(); ++n) scene_->addItem(new NodeItem(state_, n));
  scene_->addItem(new RingItem(state_));
  scene_->setSceneRect(state_->geometry.bounds().adjusted(-400, -400, 400, 400));
  fit();
}

void LayoutView::set_color_by(ColorBy c) {
  state_->color_by = c;
  viewport()->update();
  scene_->update();
}

void LayoutView::set_show_rings(bool on) {
  state_->show_rings = on;
  scene_->update();
}

void LayoutView::select_rank(int rank) {
  if (!state_->layout || rank >= state_->layout->world_size()) rank = -1;
  state_->selected = rank;
  state_->in_group.assign(kGroupKindCount, {});
  if (rank >= 0) {
    const auto& L = *state_->layout;
    for (int k = 0; k < kGroupKindCount; ++k) {
      const auto kind = static_cast<GroupKind>(k);
      if (L.groups(kind).empty()) continue;
      auto& v = state_->in_group[static_cast<std::size_t>(k)];
      v.assign(static_cast<std::size_t>(L.world_size()), false);
      for (int r : L.group_of(kind, rank)) v[static_cast<std::size_t>(r)] = true;
    }
  }
  scene_->update();
  viewport()->update();
  emit rank_selected(rank);
}

void LayoutView::fit() {
  if (!state_->layout) return;
  // Leave about 60 px at the top of the viewport for the header text, whatever the zoom.
  const QRectF b = state_->geometry.bounds().adjusted(-20, -20, 20, 20);
  fitInView(b, Qt::KeepAspectRatio);
  for (int i = 0; i < 2; ++i) {
    const double s = std::max(1e-6, transform().m11());
    fitInView(b.adjusted(0, -60 / s, 0, 0), Qt::KeepAspectRatio);
  }
}

bool LayoutView::viewportEvent(QEvent* e) {
  if (e->type() == QEvent::ToolTip && state_->layout) {
    auto* he = static_cast<QHelpEvent*>(e);
    const int rank = state_->geometry.rank_at(mapToScene(he->pos()));
    if (rank >= 0) QToolTip::showText(he->globalPos(), describe_rank(*state_->layout, rank), this);
    else QToolTip::hideText();
    return true;
  }
  return QGraphicsView::viewportEvent(e);
}

void LayoutView::mousePressEvent(QMouseEvent* e) {
  if (e->button() == Qt::LeftButton && state_->layout) {
    const int rank = state_->geometry.rank_at(mapToScene(e->position().toPoint()));
    if (rank >= 0) {
      select_rank(rank == state_->selected ? -1 : rank);
      e->accept();
      return;
    }
  }
  QGraphicsView::mousePressEvent(e);
}

void LayoutView::wheelEvent(QWheelEvent* e) {
  const double f = std::pow(1.0015, e->angleDelta().y());
  scale(f, f);
  e->accept();
}

void LayoutView::resizeEvent(QResizeEvent* e) {
  QGraphicsView::resizeEvent(e);
  fit();
}

void LayoutView::drawForeground(QPainter* p, const QRectF&) {
  if (!state_->layout) return;
  const auto& L = *state_->layout;
  p->save();
  p->resetTransform();
  QFont f = font();
  f.setPixelSize(12);
  p->setFont(f);
  const GroupKind k = group_kind_for(state_->color_by, L);
  QString line1 = QStringLiteral("%1 GPUs on %2 nodes · tp=%3 cp=%4 dp=%5 pp=%6")
                      .arg(L.world_size()).arg(L.nodes()).arg(L.tp()).arg(L.cp()).arg(L.dp()).arg(L.pp());
  if (L.hierarchical()) line1 += QStringLiteral(" · a2a+p2p [%1,%2]").arg(L.a2a_size()).arg(L.ring_size());
  if (L.hyperparallel())   // HyperParallel's (co x ds) mesh: Ulysses groups of u, Colossal all-gather of cp/u
    line1 += QStringLiteral(" · HyperParallel u=%1 x co=%2").arg(L.hp_ulysses()).arg(L.hp_colossal());
  QString line2 = QStringLiteral("colour = %1 group (%2 groups)")
                      .arg(QString::fromLatin1(megatron_group_name(k)))
                      .arg(L.groups(k).size());
  if (L.ring_size() > 1 && state_->show_rings && !L.hyperparallel()) line2 += QStringLiteral(" · arrows: ring K/V sends");
  p->setPen(QColor(0x20, 0x20, 0x20));
  p->drawText(QPointF(8, 16), line1);
  p->drawText(QPointF(8, 32), line2);
  if (state_->selected >= 0) {
    double x = 8;
    p->drawText(QPointF(x, 48), QStringLiteral("rank %1 groups:").arg(state_->selected));
    x += 110;
    for (GroupKind kind : kOutlined) {
      if (L.groups(kind).empty()) continue;
      p->setPen(QPen(group_kind_color(kind), 2.2));
      p->setBrush(Qt::NoBrush);
      p->drawRect(QRectF(x, 38, 12, 12));
      p->setPen(QColor(0x20, 0x20, 0x20));
      p->drawText(QPointF(x + 16, 48), QString::fromLatin1(to_string(kind)));
      x += 28 + 8 * static_cast<double>(std::string(to_string(kind)).size());
    }
  }
  p->restore();
}

}  // namespace hcpsim::gui
