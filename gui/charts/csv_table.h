#pragma once
// A CSV table (first row = header) and the series a chart draws from it: y against x, one series per
// value of a "series" column, e.g. step time vs cp, one series per cp_comm_type.
#include <QPointF>
#include <QString>
#include <QStringList>
#include <map>
#include <vector>

namespace hcpsim::gui {

struct CsvTable {
  QStringList header;
  std::vector<QStringList> rows;     // each padded/truncated to header.size()

  int column(const QString& name) const { return header.indexOf(name); }
  // True when every non-empty cell of the column parses as a number (and at least one does).
  bool numeric(int col) const;
};

// Parses CSV text (comma separated, double-quoted fields with "" escapes, blank lines skipped).
// Throws std::runtime_error naming `source` and the line when a row is malformed or the header is empty.
CsvTable parse_csv(const QString& text, const QString& source = QStringLiteral("<memory>"));
// Reads a file; throws std::runtime_error naming it.
CsvTable load_csv(const QString& path);

struct ChartColumns {
  int x = -1, y = -1, series = -1;   // series -1: one series
};
// Picks columns for a sweep chart: x = cp / context_parallel_size (else the first numeric column),
// y = a step/attention time column in seconds (else the last numeric column), series =
// cp_comm_type / comm_type (else none). Columns given by name in `x`, `y`, `series` win when present.
ChartColumns guess_chart_columns(const CsvTable& t, const QString& x = {}, const QString& y = {},
                                 const QString& series = {});
// Points per series name, each sorted by x; rows whose x or y does not parse are skipped.
std::map<QString, std::vector<QPointF>> chart_series(const CsvTable& t, const ChartColumns& c);

}  // namespace hcpsim::gui
