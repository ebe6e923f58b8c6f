#pragma once
// The one table of the figures the GUI shows (summary, plan table, compare): name, unit and the
// definition a tooltip gives. docs/gui.md "Figures" lists the same rows (a test compares them).
#include <QString>
#include <vector>

namespace hcpsim::gui {

struct FigureDefinition {
  const char* key;          // the report/plan field it reads, e.g. "step.time_s"
  const char* label;        // on screen
  const char* unit;         // "s", "tokens/s", "%", "GiB", ...
  const char* definition;   // one sentence, the same in docs/gui.md
};

const std::vector<FigureDefinition>& figure_definitions();
// The row of `key`; throws std::out_of_range naming the key when it is not in the table.
const FigureDefinition& figure(const char* key);
// "label (unit): definition", what a tooltip shows.
QString figure_tooltip(const char* key);

}  // namespace hcpsim::gui
