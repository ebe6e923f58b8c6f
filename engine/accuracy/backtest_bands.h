#pragma once
// The error bands a backtest gives (engine/error_band/error_band.h), and the committed table's source.
#include <string>
#include <vector>

#include "engine/error_band/error_band.h"

namespace hcpsim::accuracy {

struct AccuracyReport;

// The bands of a backtest: one per class and one per level that has holdout cases, by class name.
std::vector<ErrorBand> error_bands_of(const AccuracyReport& r);

// The C++ source of engine/error_band/error_band_table.cpp holding `bands`.
std::string error_band_table_source(const std::vector<ErrorBand>& bands);

}  // namespace hcpsim::accuracy
