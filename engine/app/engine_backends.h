#pragma once
// The backends that live in the engine (analytic, reference), added to a registry. backend_registry()
// (engine/app/backend_catalog.h) calls it once; tests call it to build a registry of their own.
#include "engine/backend/backend.h"

namespace hcpsim {

void register_engine_backends(BackendRegistry& r);

}  // namespace hcpsim
