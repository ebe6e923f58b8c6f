#include "engine/app/backend_catalog.h"

#include "engine/app/engine_backends.h"

namespace hcpsim::app {

BackendRegistry& backend_registry() {
  static BackendRegistry registry = [] {
    BackendRegistry r;
    register_engine_backends(r);
    return r;
  }();
  return registry;
}

std::unique_ptr<Backend> create_backend(const std::string& name) { return backend_registry().create(name); }

BackendRegistration::BackendRegistration(void (*add)(BackendRegistry&)) { add(backend_registry()); }

}  // namespace hcpsim::app
