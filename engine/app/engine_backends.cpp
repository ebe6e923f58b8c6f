// Registration of the backends that live in the engine. The "reference" backend (engine/reference/)
// registers itself through register_reference_backend(), called from here.
#include "engine/app/engine_backends.h"

#include "engine/analytic/analytic_backend.h"
#include "engine/reference/reference_backend.h"

namespace hcpsim {

void register_engine_backends(BackendRegistry& r) {
  r.add("analytic",
        "deterministic list scheduling, alpha-beta links without contention, processor-shared GPUs (fast)",
        [] { return make_analytic_backend(); });
  register_reference_backend(r);
}

}  // namespace hcpsim
