#pragma once
// What the plan and sweep tables share: one row per result, columns named by a header list (Qt's
// horizontal header; no vertical header), and nothing below the top level. A table sets its header
// and answers rows() and data(); the counts and the header's texts are answered here.
#include <QAbstractTableModel>
#include <QStringList>

namespace hcpsim::gui {

class ResultTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  // The column of a header name ("step_s", an axis column, ...); -1 when there is none.
  int column(const QString& name) const { return header_.indexOf(name); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 protected:
  // The results shown (rows at the top level).
  virtual int rows() const = 0;
  // Column names, in column order; call inside a model reset when they change.
  void set_header(QStringList header) { header_ = std::move(header); }

 private:
  QStringList header_;
};

}  // namespace hcpsim::gui
