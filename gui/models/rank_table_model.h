#pragma once
// Item model of a RankLayout: one row per global rank, columns rank, node, gpu, tp, cp, dp, pp, a2a,
// ring, ring next, ring prev. Used by the layout view's side table and by tests.
#include <QAbstractTableModel>
#include <memory>

#include "engine/layout/rank_layout.h"

namespace hcpsim::gui {

class RankTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Rank, Node, Gpu, Tp, Cp, Dp, Pp, A2a, Ring, RingNext, RingPrev, ColumnCount };

  explicit RankTableModel(QObject* parent = nullptr);
  // Replaces the layout (resets the model); nullptr clears it.
  void set_layout(std::shared_ptr<const RankLayout> layout);
  const RankLayout* layout() const { return layout_.get(); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  // DisplayRole: integer values (ring next/prev: -1 when the ring size is 1); ToolTipRole: the rank's
  // groups in Megatron's names.
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  std::shared_ptr<const RankLayout> layout_;
};

// Multi-line description of one rank: coordinates and every group it belongs to.
QString describe_rank(const RankLayout& layout, int rank);

}  // namespace hcpsim::gui
