#pragma once
// The planner's validation: every error of validate() without the placement warnings, which lay out
// every rank of the job. What accepts or rejects a candidate, at a cost that does not grow with the
// GPU count.
#include "engine/core/diagnostics.h"
#include "engine/scenario/scenario.h"
#include "engine/validate/feasibility.h"

namespace hcpsim {

// `memo`: fold plans shared between calls (feasibility.h FoldMemo); nullptr: none.
Diagnostics validate_without_placement(const Scenario& s, FoldMemo* memo = nullptr);

}  // namespace hcpsim
