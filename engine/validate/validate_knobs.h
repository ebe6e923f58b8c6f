#pragma once
// Knobs the chosen model cannot use: a field the user set that would change nothing (or describe
// hardware that cannot do what it asks) is an error or a warning naming it, never silence
// (docs/scenario.md "Fields the model cannot use").
#include "engine/core/diagnostics.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {

// model.fp8_recipe mxfp8 off Blackwell (error); cluster.efficiency.attention_kernel where no
// published table tells the families apart; cluster.inter_node.topology (what each backend makes
// of it) and oversubscription on a star (error).
Diagnostics validate_knobs(const Scenario& s);

}  // namespace hcpsim
