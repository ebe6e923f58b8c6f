#include "gui/charts/csv_table.h"

#include <QFile>
#include <algorithm>
#include <stdexcept>

#include "engine/planning/sweep_result.h"

namespace hcpsim::gui {
namespace {

// Splits one CSV record with the engine's splitter (the one sweeps write and resume with); false on
// an unterminated quote (an odd number of quote characters: escaped quotes come in pairs).
bool split_record(const QString& line, QStringList& out) {
  out.clear();
  for (const std::string& field : planning::split_csv_line(line.toStdString()))
    out << QString::fromStdString(field).trimmed();
  return line.count('"') % 2 == 0;
}

bool to_number(const QString& s, double& v) {
  bool ok = false;
  v = s.toDouble(&ok);
  return ok;
}

}  // namespace

bool CsvTable::numeric(int col) const {
  if (col < 0 || col >= header.size()) return false;
  bool any = false;
  for (const auto& r : rows) {
    if (r[col].isEmpty()) continue;
    double v;
    if (!to_number(r[col], v)) return false;
    any = true;
  }
  return any;
}

CsvTable parse_csv(const QString& text, const QString& source) {
  CsvTable t;
  const QStringList lines = text.split('\n');
  int line_no = 0;
  for (QString line : lines) {
    ++line_no;
    if (line.endsWith('\r')) line.chop(1);
    if (line.trimmed().isEmpty()) continue;
    QStringList fields;
    if (!split_record(line, fields))
      throw std::runtime_error((source + ":" + QString::number(line_no) + ": unterminated quoted field").toStdString());
    if (t.header.isEmpty()) {
      t.header = fields;
      continue;
    }
    if (fields.size() > t.header.size())
      throw std::runtime_error((source + ":" + QString::number(line_no) + ": " + QString::number(fields.size()) +
                                " fields but the header has " + QString::number(t.header.size()))
                                   .toStdString());
    while (fields.size() < t.header.size()) fields << QString();
    t.rows.push_back(fields);
  }
  if (t.header.isEmpty()) throw std::runtime_error((source + ": empty CSV (no header row)").toStdString());
  return t;
}

CsvTable load_csv(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly | QIODevice::Text))
    throw std::runtime_error((path + ": cannot open CSV file").toStdString());
  return parse_csv(QString::fromUtf8(f.readAll()), path);
}

ChartColumns guess_chart_columns(const CsvTable& t, const QString& x, const QString& y, const QString& series) {
  ChartColumns c;
  auto first_of = [&](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (int i = t.column(QLatin1String(n)); i >= 0) return i;
    return -1;
  };
  c.x = !x.isEmpty() ? t.column(x) : first_of({"cp", "context_parallel_size", "model.context_parallel_size"});
  if (c.x < 0)
    for (int i = 0; i < t.header.size() && c.x < 0; ++i) if (t.numeric(i)) c.x = i;
  c.y = !y.isEmpty() ? t.column(y)
                     : first_of({"step_s", "attention_s", "attention_forward_s", "forward_s", "time_s", "layer_forward_s"});
  if (c.y < 0)
    for (int i = t.header.size() - 1; i >= 0 && c.y < 0; --i)
      if (i != c.x && t.numeric(i)) c.y = i;
  c.series = !series.isEmpty() ? t.column(series) : first_of({"cp_comm_type", "comm_type", "model.cp_comm_type", "series"});
  return c;
}

std::map<QString, std::vector<QPointF>> chart_series(const CsvTable& t, const ChartColumns& c) {
  std::map<QString, std::vector<QPointF>> out;
  if (c.x < 0 || c.y < 0) return out;
  for (const auto& r : t.rows) {
    double x, y;
    if (!to_number(r[c.x], x) || !to_number(r[c.y], y)) continue;
    const QString name = c.series >= 0 ? r[c.series] : t.header[c.y];
    out[name].emplace_back(x, y);
  }
  for (auto& [n, pts] : out)
    std::sort(pts.begin(), pts.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
  return out;
}

}  // namespace hcpsim::gui
