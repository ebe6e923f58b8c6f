#pragma once
// --plot: draws a ChartData offscreen into a PNG or SVG file with the GUI's chart renderer
// (gui/charts/sweep_chart_builder.h), so the command line and the GUI draw the same chart.
#include <string>

#include "engine/planning/sweep_chart.h"

namespace hcpsim::cli {

// True when this build can render charts (Qt6 Charts and Svg were found).
bool chart_rendering_available();

// Writes `path` (.png or .svg, 1000x640 px). Throws std::runtime_error when the build has no Qt
// Charts, the extension is neither, or the file cannot be written.
void render_chart(const planning::ChartData& chart, const std::string& path);

}  // namespace hcpsim::cli
