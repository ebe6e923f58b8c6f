#pragma once
// The chart view's built-in cp sweep, when the user gave no CSV file: the planner's own candidates
// (planning::enumerate_candidates) at the scenario's tp, pp and rank order, validated by the
// scenario rules and predicted through the application layer with the analytic backend. The global
// batch of every point is one micro-batch per DP replica: what is charted, the attention of one
// layer, does not depend on it, and a fixed batch would not divide at every cp.
#include <QStringList>

#include "engine/scenario/scenario.h"
#include "gui/charts/csv_table.h"

namespace hcpsim::gui {

// Columns: cp, cp_comm_type, hcp ("[A,P]" for a2a+p2p), attention_s (the report's attention
// forward + backward of one layer). One row per cp > 1 and comm type; of the a2a+p2p splits the
// planner enumerates, the fastest. Rejected candidates go to `skipped` ("cp=8 a2a: <the rule's
// message>") when non-null.
CsvTable builtin_cp_sweep(const Scenario& s, QStringList* skipped = nullptr);

}  // namespace hcpsim::gui
