#pragma once
// In-process runs of the engine's analytic backend for the GUI: a trace for the timeline view and a
// built-in cp sweep for the chart view, when the user gave no trace or CSV file.
#include <QString>
#include <QStringList>

#include "engine/scenario/scenario.h"
#include "engine/trace/trace.h"
#include "gui/models/csv_table.h"

namespace hcpsim::gui {

// Builds the scenario's task graph (attention only: whole_layer off, 1 layer, its passes) and runs the
// analytic backend. Throws std::exception with the engine's message on bad input.
Trace run_analytic(const Scenario& s);

// cp sweep with the analytic backend: cp = 2, 4, 8, ... (dividing world/(tp*pp) and seq/2) for each
// comm type that is valid at that cp (a2a: heads and KV heads per TP rank divisible by cp; a2a+p2p:
// the largest valid a2a size A with 2 <= A < cp). Columns: cp, cp_comm_type, hcp, attention_s
// (forward + backward of one layer on the slowest rank). Skipped points go to `skipped` when non-null.
CsvTable builtin_cp_sweep(const Scenario& s, QStringList* skipped = nullptr);

}  // namespace hcpsim::gui
