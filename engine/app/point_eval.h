#pragma once
// From a scenario to the metrics of a sweep/plan row: layout, task graph, one backend run, Report,
// plus the memory estimate. Used by `hcpsim sweep` and `hcpsim plan`.
#include <map>
#include <string>

#include "engine/backend/backend.h"
#include "engine/memory/memory_model.h"
#include "engine/report/report.h"
#include "engine/planning/sweep_result.h"
#include "engine/planning/sweep_spec.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::planning {

// Predicts a valid scenario with the named backend (memory is not filled). Throws
// std::invalid_argument for an unknown backend and std::runtime_error when the run fails.
// `layer_cache`, when given, keeps the layer report of each model-parallel slice (tp, cp, comm type,
// split, micro-batch, ...) so that candidates differing only in pp, vpp, dp, recomputation or the
// optimizer run the backend once.
using LayerCache = std::map<std::string, Report>;
// The LayerCache key of a scenario: what its model-parallel slice's layer graph depends on.
std::string layer_cache_key(const Scenario& s, const std::string& backend);
PointMetrics predict_scenario(const Scenario& s, const std::string& backend,
                              const BackendRegistry& registry, LayerCache* layer_cache = nullptr);

// One sweep point: loads `base_path` with the point's overrides, validates (errors -> status
// invalid with the first error and its hint), estimates memory, predicts. Never throws for bad
// input: load errors also become an invalid row.
PointResult evaluate_point(const std::string& base_path, const SweepPoint& point,
                           const std::string& backend, const BackendRegistry& registry,
                           const MemoryOptions& memory);

}  // namespace hcpsim::planning
