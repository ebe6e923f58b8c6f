#pragma once
// The GPU runner as a backend of the one registry: "cuda" runs every rank's tasks on GPU 0 with the
// real kernels (emulated_run.h) and reports the measured durations placed on the graph.
#include "engine/backend/backend.h"

namespace hcpsim::kernels {

void register_cuda_backend(BackendRegistry& r);

}  // namespace hcpsim::kernels
