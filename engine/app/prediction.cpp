#include "engine/app/prediction.h"

#include <stdexcept>

#include "engine/app/backend_catalog.h"

namespace hcpsim::app {

namespace {

std::unique_ptr<Backend> timing_backend(const Scenario& s, const std::string& backend) {
  const std::string name = backend.empty() ? s.simulation.backend : backend;
  std::unique_ptr<Backend> b = create_backend(name);
  if (!b->capabilities().predicts_time)
    throw std::invalid_argument("backend '" + name + "' does not predict time (use hcpsim verify)");
  return b;
}

}  // namespace

SimulationResult predict(const Scenario& s, const std::string& backend, const SimulateOptions& options) {
  const std::unique_ptr<Backend> b = timing_backend(s, backend);
  return simulate_scenario(s, *b, options);
}

SimulationResult predict(const Scenario& s, const FoldPlan& fold, const std::string& backend,
                         const SimulateOptions& options) {
  const std::unique_ptr<Backend> b = timing_backend(s, backend);
  return simulate_planned(s, fold, *b, options);
}

SimulationResult predict_attention(const Scenario& s, const std::string& backend, const SimulateOptions& options) {
  Scenario one = s;
  one.simulation.layers = 1;
  one.model.cp_comm_type = {s.comm_type_for_layer(0)};   // the first layer's kind only
  one.model.ffn_hidden_size = 0;   // whole-layer operations are built only when the FFN size is known
  return predict(one, backend, options);
}

}  // namespace hcpsim::app
