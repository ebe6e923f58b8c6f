#pragma once
// In-process runs of the engine's analytic backend for the GUI: a trace for the timeline view and a
// built-in cp sweep for the chart view, when the user gave no trace or CSV file.
#include <QString>
#include <QStringList>

#include "engine/scenario/scenario.h"
#include "engine/trace/trace.h"
#include "gui/models/csv_table.h"

namespace hcpsim::gui {

// The application layer's attention-only prediction (engine/app/prediction.h) with the analytic
// backend: the trace of the first layer. Throws std::exception with the engine's message on bad input.
Trace run_analytic(const Scenario& s);

// cp sweep with the analytic backend: cp = 2, 4, 8, ... (dividing world/(tp*pp) and seq/2) for each
// comm type that is valid at that cp (a2a: heads and KV heads per TP rank divisible by cp; a2a+p2p:
// the largest valid a2a size A with 2 <= A < cp). Columns: cp, cp_comm_type, hcp, attention_s (the
// report's attention_forward_s + attention_backward_s of one layer). Skipped points go to `skipped` when non-null.
CsvTable builtin_cp_sweep(const Scenario& s, QStringList* skipped = nullptr);

}  // namespace hcpsim::gui
