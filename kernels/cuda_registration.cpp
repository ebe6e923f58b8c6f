// Adds the "cuda" backend to the process's one registry (engine/app/backend_catalog.h). Compiled
// into every program that links hcpsim_backends when kernels/ is built.
#include "engine/app/backend_catalog.h"
#include "kernels/cuda_backend.h"

namespace {
const hcpsim::app::BackendRegistration kCuda(&hcpsim::kernels::register_cuda_backend);
}  // namespace
