#pragma once
// Placement warnings (docs/scenario.md "Rules"): a2a groups that span nodes, rings whose every hop
// leaves the node where a split with a node-local a2a exists, tiny CP chunks, degenerate
// hierarchical levels. Read from the rank layout; they never make a scenario unusable.
#include "engine/core/diagnostics.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {

// Warnings only; call on a scenario without errors.
Diagnostics check_placement(const Scenario& s);

}  // namespace hcpsim
