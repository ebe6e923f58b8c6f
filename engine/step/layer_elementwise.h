#pragma once
// The per-layer elementwise kernels of a scenario (model.elementwise_ops): norms, rotary embedding,
// SwiGLU and residual adds, each priced by the HBM bytes it moves. Formulas: docs/metrics.md
// section 11.
#include "engine/scenario/scenario.h"
#include "engine/step/step_work.h"

namespace hcpsim::step {

// Fills w.layer_elementwise_forward / _backward (both empty with `none` or without
// model.ffn_hidden_size).
void add_layer_elementwise(const Scenario& s, StepWork& w);

}  // namespace hcpsim::step
