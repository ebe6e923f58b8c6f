#include "gui/models/rank_table_model.h"

#include <QStringList>

namespace hcpsim::gui {

RankTableModel::RankTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void RankTableModel::set_layout(std::shared_ptr<const RankLayout> layout) {
  beginResetModel();
  layout_ = std::move(layout);
  endResetModel();
}

int RankTableModel::rowCount(const QModelIndex& parent) const {
  return (parent.isValid() || !layout_) ? 0 : layout_->world_size();
}

int RankTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RankTableModel::data(const QModelIndex& index, int role) const {
  if (!layout_ || !index.isValid() || index.row() >= layout_->world_size()) return {};
  const int rank = index.row();
  if (role == Qt::ToolTipRole) return describe_rank(*layout_, rank);
  if (role != Qt::DisplayRole && role != Qt::EditRole) return {};
  const RankCoord& c = layout_->coord(rank);
  const bool ring = layout_->ring_size() > 1;
  switch (index.column()) {
    case Rank: return c.rank;
    case Node: return c.node;
    case Gpu: return c.gpu;
    case Tp: return c.tp;
    case Cp: return c.cp;
    case Dp: return c.dp;
    case Pp: return c.pp;
    case A2a: return c.a2a;
    case Ring: return c.ring;
    case RingNext: return ring ? layout_->ring_next(rank) : -1;
    case RingPrev: return ring ? layout_->ring_prev(rank) : -1;
    default: return {};
  }
}

QVariant RankTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (o == Qt::Vertical) return section;
  static const char* names[] = {"rank", "node", "gpu", "tp", "cp", "dp", "pp", "a2a", "ring", "ring next", "ring prev"};
  return (section >= 0 && section < ColumnCount) ? QVariant(QString::fromLatin1(names[section])) : QVariant();
}

QString describe_rank(const RankLayout& L, int rank) {
  const RankCoord& c = L.coord(rank);
  QStringList lines;
  lines << QStringLiteral("rank %1  (node %2, GPU %3)").arg(rank).arg(c.node).arg(c.gpu);
  lines << QStringLiteral("tp=%1 cp=%2 dp=%3 pp=%4").arg(c.tp).arg(c.cp).arg(c.dp).arg(c.pp);
  if (L.hierarchical()) lines << QStringLiteral("a2a index %1, ring position %2").arg(c.a2a).arg(c.ring);
  if (L.ring_size() > 1)
    lines << QStringLiteral("ring: sends K/V to %1, receives from %2").arg(L.ring_next(rank)).arg(L.ring_prev(rank));
  for (int k = 0; k < kGroupKindCount; ++k) {
    const auto kind = static_cast<GroupKind>(k);
    if (L.groups(kind).empty()) continue;
    QStringList members;
    for (int r : L.group_of(kind, rank)) members << QString::number(r);
    lines << QStringLiteral("%1 #%2: [%3]")
                 .arg(QString::fromLatin1(megatron_group_name(kind)))
                 .arg(L.group_index_of(kind, rank))
                 .arg(members.join(' '));
  }
  return lines.join('\n');
}

}  // namespace hcpsim::gui
