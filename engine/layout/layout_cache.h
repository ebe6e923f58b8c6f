#pragma once
// The rank layout of a scenario, shared: callers that compose many candidates with the same
// parallel layout (the planner composes thousands of steps whose layouts differ only in micro-batch
// size, interleaving or recomputation) get one built layout instead of building each anew. A
// 16,384-GPU layout takes milliseconds and megabytes to build; the planner's step composition
// spent two thirds of its time on it.
#include <memory>

#include "engine/layout/rank_layout.h"

namespace hcpsim {

struct Scenario;

// Every field of the scenario that RankLayout::from_scenario reads.
LayoutParams layout_params_of(const Scenario& s);

// The layout of `s`, from a small cache of the most recently built layouts (keyed by every field
// of LayoutParams; safe to call from several threads). Throws like RankLayout::build.
std::shared_ptr<const RankLayout> shared_layout(const Scenario& s);

}  // namespace hcpsim
