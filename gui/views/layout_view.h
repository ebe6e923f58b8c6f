#pragma once
// Layout view: nodes and their GPUs, coloured by the group of one kind (TP, CP, DP, PP, a2a group,
// ring); rings drawn as arrows; hover shows a GPU's rank and coordinates; click highlights every group
// of that GPU. One item per node paints its GPUs, with less detail when zoomed out (4,096 GPUs stay
// smooth); hit-testing goes through LayoutGeometry, not through per-GPU items.
#include <QGraphicsView>
#include <memory>

#include "engine/layout/rank_layout.h"
#include "gui/models/layout_geometry.h"

namespace hcpsim::gui {

// What the items paint; shared by the view and its items.
struct LayoutPaintState {
  std::shared_ptr<const RankLayout> layout;
  LayoutGeometry geometry = LayoutGeometry::build(1, 1);
  ColorBy color_by = ColorBy::CP;
  bool show_rings = true;
  int selected = -1;                       // rank whose groups are highlighted, or -1
  std::vector<std::vector<bool>> in_group;  // per kind: in_group[k][rank] for the selected rank
};

class LayoutView : public QGraphicsView {
  Q_OBJECT
 public:
  explicit LayoutView(QWidget* parent = nullptr);
  // Shows a layout (rebuilds the scene); fits it in the view.
  void set_layout(std::shared_ptr<const RankLayout> layout);
  const LayoutPaintState& state() const { return *state_; }
  void set_color_by(ColorBy c);
  void set_show_rings(bool on);
  // Highlights every group of `rank` (-1 clears). Emits rank_selected.
  void select_rank(int rank);
  // Fits the whole cluster in the viewport.
  void fit();

 signals:
  void rank_selected(int rank);

 protected:
  bool viewportEvent(QEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void drawForeground(QPainter* p, const QRectF& rect) override;
  void resizeEvent(QResizeEvent* e) override;

 private:
  std::shared_ptr<LayoutPaintState> state_;
  QGraphicsScene* scene_;
};

}  // namespace hcpsim::gui
