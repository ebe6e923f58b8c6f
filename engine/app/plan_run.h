#pragma once
// The planner through the application layer: every candidate validated with the scenario rules,
// checked against GPU memory, and the fitting ones predicted with one backend (one run per
// model-parallel slice), as `hcpsim plan` does. What the GUI's plan view runs.
#include <atomic>
#include <stdexcept>
#include <string>

#include "engine/planning/planner.h"

namespace hcpsim::app {

// Thrown by plan_layouts when `cancel` became true before the plan finished.
struct PlanCancelled : std::runtime_error {
  PlanCancelled() : std::runtime_error("plan cancelled") {}
};

// Plans `base` with `backend` ("" = analytic). `cancel`, when given, is read before every
// prediction: once true, the remaining candidates are not predicted and PlanCancelled is thrown.
// Throws std::invalid_argument as planning::plan does (GPU count, unknown metric or backend).
planning::PlanOutcome plan_layouts(const Scenario& base, planning::PlanOptions options, const std::string& backend = "",
                                   const std::atomic<bool>* cancel = nullptr);

}  // namespace hcpsim::app
