#pragma once
// A sweep through the application layer, in this process: every point of a sweep evaluated in
// point order as `hcpsim sweep` evaluates each in its worker (planning::evaluate_point: the base
// scenario loaded with the point's overrides, validated, its memory estimated, predicted). What the
// GUI's Run ▸ Sweep runs, on a worker thread.
#include <atomic>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/planning/sweep_result.h"
#include "engine/planning/sweep_spec.h"

namespace hcpsim::app {

// Thrown by sweep_points when `cancel` became true before the last point.
struct SweepCancelled : std::runtime_error {
  SweepCancelled() : std::runtime_error("sweep cancelled") {}
};

// The sweep `hcpsim sweep FILE --vary ...` runs: FILE a sweep file (its axes, then `vary`'s) or a
// scenario (`vary`'s axes only). Throws std::runtime_error "FILE:LINE: field: message" for a bad
// sweep file, std::invalid_argument naming the argument for a malformed vary argument, a missing
// FILE or nothing to vary.
planning::SweepSpec sweep_spec(const std::string& file, const std::vector<std::string>& vary = {});

struct SweepRun {
  planning::SweepSpec spec;
  std::vector<std::string> columns;            // the axis columns (planning::sweep_columns)
  std::vector<planning::PointResult> results;  // one per point, in point order
};

// Evaluates every point of `spec`. `progress` is called after each point with (done, total);
// `cancel`, when given, is read before each point: once true, SweepCancelled is thrown. Invalid
// points are rows with their message, never exceptions. Throws std::invalid_argument for an unknown
// spec.backend.
SweepRun sweep_points(const planning::SweepSpec& spec,
                      const std::function<void(std::size_t, std::size_t)>& progress = nullptr,
                      const std::atomic<bool>* cancel = nullptr);

}  // namespace hcpsim::app
