// Adds the "simgrid" backend to the process's one registry (engine/app/backend_catalog.h). Compiled
// into every program that links hcpsim_backends, so the backend is there whenever sim/ is built.
#include "engine/app/backend_catalog.h"
#include "sim/simgrid_backend.h"

namespace {
const hcpsim::app::BackendRegistration kSimgrid(&hcpsim::sim::register_simgrid_backend);
}  // namespace
