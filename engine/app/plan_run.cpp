#include "engine/app/plan_run.h"

#include "engine/app/backend_catalog.h"
#include "engine/app/point_eval.h"
#include "engine/validate/validate.h"

namespace hcpsim::app {

planning::PlanOutcome plan_layouts(const Scenario& base, planning::PlanOptions options, const std::string& backend,
                                   const std::atomic<bool>* cancel) {
  const std::string name = backend.empty() ? std::string("analytic") : backend;
  const BackendRegistry& registry = backend_registry();
  planning::LayerCache cache;   // one backend run per model-parallel slice
  auto cancelled = [cancel] { return cancel != nullptr && cancel->load(); };
  auto predict = [&](const Scenario& s) {
    if (cancelled()) throw PlanCancelled();
    return planning::predict_scenario(s, name, registry, &cache);
  };
  auto progress = options.progress;
  options.progress = [progress, cancelled](std::size_t done, std::size_t total, std::size_t predicted) {
    if (cancelled()) throw PlanCancelled();
    if (progress) progress(done, total, predicted);
  };
  options.jobs = 1;   // the layer cache is shared in this process
  planning::PlanOutcome out = planning::plan(base, options, [](const Scenario& s) { return validate(s); }, predict,
                                             [&name](const Scenario& s) { return planning::layer_cache_key(s, name); });
  if (cancelled()) throw PlanCancelled();
  return out;
}

}  // namespace hcpsim::app
