#pragma once
// Validation rules 1-9 of docs/scenario.md "Rules", quoting Megatron-LM / Megatron-Bridge / TE messages.
#include "engine/core/diagnostics.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {

// Checks every rule; errors make the scenario unusable, warnings do not.
Diagnostics validate(const Scenario& s);

}  // namespace hcpsim
