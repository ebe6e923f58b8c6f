#pragma once
// The one backend registry of the process. The engine fills it with its own backends (analytic,
// reference); sim/ and kernels/ add theirs (simgrid, cuda) through a BackendRegistration object
// when they are part of the build, so front ends never list backends themselves.
#include <memory>
#include <string>

#include "engine/backend/backend.h"

namespace hcpsim::app {

// Every backend of this build. Safe to call from static initialisers.
BackendRegistry& backend_registry();

// Creates a backend by name. Throws std::invalid_argument with the registry's one message
// ("unknown backend 'x'; valid backends in this build: ...") when the name is unknown.
std::unique_ptr<Backend> create_backend(const std::string& name);

// Declared at namespace scope in a backend library's registration file, it adds that library's
// backends to backend_registry() before main() runs.
struct BackendRegistration {
  explicit BackendRegistration(void (*add)(BackendRegistry&));
};

}  // namespace hcpsim::app
