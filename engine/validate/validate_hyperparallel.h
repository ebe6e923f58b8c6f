#pragma once
// The rules of HyperParallel's CP guide for the `hyperparallel:` section and `model.dsa`
// (docs/scenario.md "HyperParallel"), with HyperParallel's own words where it has a message.
#include "engine/core/diagnostics.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {

// Empty when the section is absent (then model.dsa alone only warns).
Diagnostics validate_hyperparallel(const Scenario& s);

// Largest u > 1 with cp % u == 0 and both per-TP-rank head counts divisible by u (1 when none).
int largest_ulysses_degree(int cp, int heads_per_tp_rank, int kv_heads_per_tp_rank);

}  // namespace hcpsim
