#pragma once
// The one Qt renderer of sweep charts, used by `hcpsim sweep --plot` (cli/plot_chart.cpp) and the
// GUI's chart view, so both draw the same axes: log2 x when ChartData::log2_x, decade axes when
// log10_x / log10_y (predicted-vs-measured charts), categories when the first axis is not numeric,
// otherwise a y axis from 0 and seconds below one second shown in milliseconds; scatter series
// (markers only) when ChartSeries::points_only.
#include <QChart>

#include "engine/planning/sweep_chart.h"
#include "gui/charts/csv_table.h"

namespace hcpsim::gui {

// A new chart (the caller owns it) with one line per series.
QChart* build_sweep_chart(const planning::ChartData& data);

// Chart data of a CSV table: the columns `c` picks, one series per value of c.series (rows whose x
// or y does not parse are skipped); log2_x by the same rule as planning::make_chart.
planning::ChartData chart_data_from_table(const CsvTable& t, const ChartColumns& c, const QString& title);

}  // namespace hcpsim::gui
