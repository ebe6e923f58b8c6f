#pragma once
// How the GUI predicts: one interface over the engine's application layer (engine/app). The window
// and the screenshots ask a Predictor; the in-process one calls app::predict exactly as `hcpsim
// simulate` does (same backend choice, same fold, same report), so every figure the GUI shows is
// the CLI's.
#include <string>

#include "engine/report/report.h"
#include "engine/scenario/scenario.h"
#include "engine/trace/trace.h"

namespace hcpsim::gui {

struct PredictionOutcome {
  Report report;   // what `hcpsim simulate` prints
  Trace trace;     // its events (the whole layer graph that was simulated)
};

class Predictor {
 public:
  virtual ~Predictor() = default;
  // `backend` empty: the scenario's simulation.backend. Throws std::exception with the engine's
  // message (unknown backend, a scenario the builders reject, a backend that cannot finish).
  virtual PredictionOutcome predict(const Scenario& s, const std::string& backend) const = 0;
};

// The application layer in this process.
class InProcessPredictor final : public Predictor {
 public:
  PredictionOutcome predict(const Scenario& s, const std::string& backend) const override;
};

// The predictor the GUI uses.
const Predictor& default_predictor();

}  // namespace hcpsim::gui
