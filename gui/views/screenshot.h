#pragma once
// Offscreen rendering of one view to PNG/SVG: what `hcpsim-gui --screenshot VIEW OUT FILE [k=v...]`
// does after loading the scenario, and what the screenshot tests call directly.
#include <QSize>
#include <QString>
#include <memory>

#include "engine/scenario/scenario.h"

namespace hcpsim::gui {

struct ScreenshotRequest {
  QString view;            // layout | ring | timeline | chart | summary | plan | step-timeline
  QString out;             // .png or .svg
  QSize size{1200, 800};   // pixels
  QString color_by = QStringLiteral("cp");   // layout: tp | cp | dp | pp | a2a | ring
  int select_rank = -1;    // layout: highlight this rank's groups
  int step = -1;           // ring: step to show (-1 = last step, the whole matrix)
  int cp_index = -1;       // reserved
  QString trace;           // timeline: predicted trace (Chrome JSON); chart: with `measured`
  QString measured;        // timeline overlay / chart predicted-vs-measured
  QString csv;             // chart: sweep table
  QString x, y, series;    // chart columns (empty = guess)
  QString backend;         // summary, step-timeline: the prediction's backend ("" = the scenario's simulation.backend)
  int gpus = 0;            // plan: GPUs to plan for (0 = the scenario's world size)
};

// Valid VIEW names, for messages.
QString screenshot_views();
// Renders the view for `scenario` (may be null for chart/timeline from files). Returns false with a
// message naming the input when something is missing or cannot be read.
bool render_screenshot(const ScreenshotRequest& r, const Scenario* scenario, QString* error);

}  // namespace hcpsim::gui
