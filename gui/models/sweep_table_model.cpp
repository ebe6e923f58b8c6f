#include "gui/models/sweep_table_model.h"

#include <cmath>
#include <filesystem>

namespace hcpsim::gui {
namespace {

constexpr int kFixedBefore = 2;   // status, comm_type

}  // namespace

SweepTableModel::SweepTableModel(QObject* parent) : ResultTableModel(parent) {}

void SweepTableModel::set_run(app::SweepRun run) {
  beginResetModel();
  run_ = std::move(run);
  QStringList header;
  for (const std::string& c : run_.columns) header << QString::fromStdString(c);
  header << QStringLiteral("status") << QStringLiteral("comm_type");
  for (const std::string& m : planning::metric_names()) header << QString::fromStdString(m);
  header << QStringLiteral("fits") << QStringLiteral("wall_s") << QStringLiteral("message");
  set_header(std::move(header));
  endResetModel();
}

QVariant SweepTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const planning::PointResult& r = run_.results[static_cast<std::size_t>(index.row())];
  if (role == Qt::ToolTipRole) return QString::fromStdString(r.message);
  if (role != Qt::DisplayRole && role != Qt::UserRole) return {};
  const int axes = static_cast<int>(run_.columns.size());
  const int metrics = static_cast<int>(planning::metric_names().size());
  int c = index.column();
  if (c < axes) return c < static_cast<int>(r.labels.size()) ? QString::fromStdString(r.labels[static_cast<std::size_t>(c)]) : QString();
  c -= axes;
  if (c == 0) return QString::fromLatin1(planning::to_string(r.status));
  if (c == 1) return QString::fromStdString(r.comm_type);
  c -= kFixedBefore;
  if (c < metrics) {
    const double v = planning::metric_value(r, planning::metric_names()[static_cast<std::size_t>(c)]);
    if (role == Qt::UserRole) return v;
    return std::isnan(v) ? QStringLiteral("-") : QString::number(v, 'g', 6);
  }
  c -= metrics;
  if (c == 0) return r.fits ? QStringLiteral("yes") : QStringLiteral("no");
  if (c == 1) return role == Qt::UserRole ? QVariant(r.wall_s) : QVariant(QString::number(r.wall_s, 'f', 3));
  if (c == 2) return QString::fromStdString(r.message);
  return {};
}

std::vector<std::string> split_axes(const QString& line) {
  std::vector<std::string> axes;
  QString cur;
  int depth = 0;
  for (const QChar c : line) {
    if (c == '[') ++depth;
    if (c == ']' && depth > 0) --depth;
    if (c.isSpace() && depth == 0) {
      if (!cur.isEmpty()) axes.push_back(cur.toStdString());
      cur.clear();
    } else if (!c.isSpace()) {
      cur += c;
    }
  }
  if (!cur.isEmpty()) axes.push_back(cur.toStdString());
  return axes;
}

planning::ChartData sweep_chart_data(const app::SweepRun& run) {
  const std::string stem = std::filesystem::path(run.spec.base_path).stem().string();
  const std::string first = run.columns.empty() ? std::string() : run.columns.front();
  return planning::make_chart(run.results, run.columns, run.spec.metric, run.spec.metric + " vs " + first + " (" + stem + ")");
}

}  // namespace hcpsim::gui
