#include "gui/models/result_table_model.h"

namespace hcpsim::gui {

int ResultTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : rows(); }

int ResultTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : header_.size(); }

QVariant ResultTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= header_.size()) return {};
  return header_[section];
}

}  // namespace hcpsim::gui
