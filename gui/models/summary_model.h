#pragma once
// The summary of one prediction: the headline figures (figure_definitions.h), the memory bar items
// against capacity and the exposed communication by group, all read from the engine's Report (the
// one `hcpsim simulate` prints).
#include <QString>
#include <optional>
#include <vector>

#include "engine/report/report.h"

namespace hcpsim::gui {

struct SummaryFigure {
  const char* key = "";   // figure_definitions.h key
  double value = 0;       // in the figure's unit (s, tokens/s, %, GiB, TFLOP/s)
  QString text;           // value with its unit, as shown
};

struct MemoryItem {
  QString name;   // "weights", "gradients", "optimizer_states", ...
  double bytes = 0;
};

struct Summary {
  QString scenario, backend;
  // step time, tokens/s per GPU, MFU, model TFLOP/s, the step's error band (when the model has one),
  // bubble, attention per layer, memory, headroom
  std::vector<SummaryFigure> headline;
  std::vector<SummaryFigure> exposed;    // exposed communication by group
  std::vector<MemoryItem> memory;        // the memory model's breakdown, in its order
  double capacity_bytes = 0;
  double peak_bytes = 0;
  bool has_step = false;                 // the report has the whole step (batch and pipeline divide)
  bool has_memory = false;
  QString error_band;                    // accuracy::describe of the step's band, "" when it has none
  bool fits() const { return peak_bytes <= capacity_bytes; }
  // The figure of `key`, or nullptr.
  const SummaryFigure* find(const char* key) const;
};

Summary summarize(const Report& r);

// "1.234 s", "12.3 ms", "850 us" (three significant digits).
QString format_seconds(double s);

}  // namespace hcpsim::gui
