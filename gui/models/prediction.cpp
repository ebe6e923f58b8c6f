#include "gui/models/prediction.h"

#include "engine/app/prediction.h"

namespace hcpsim::gui {

PredictionOutcome InProcessPredictor::predict(const Scenario& s, const std::string& backend) const {
  SimulateOptions options;   // keep_events: the timeline draws them; the report is the same either way
  SimulationResult r = app::predict(s, backend, options);
  return PredictionOutcome{std::move(r.report), std::move(r.trace)};
}

const Predictor& default_predictor() {
  static const InProcessPredictor p;
  return p;
}

}  // namespace hcpsim::gui
