#pragma once
// The reference executor as a Backend named "reference": computes real values on CPU; events
// carry wall-clock times of the CPU run (not predictions). The graph must be built with
// GraphOptions::with_payloads = true.
#include "engine/backend/backend.h"

namespace hcpsim {

// Adds the "reference" backend to `r`.
void register_reference_backend(BackendRegistry& r);

}  // namespace hcpsim
