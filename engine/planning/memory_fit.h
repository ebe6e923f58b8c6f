#pragma once
// What would make a job fit in GPU memory: the layouts on the same GPUs that validate and fit, fewest
// changed settings first, each as key=value overrides. Used by `hcpsim validate` (a warning when the
// job does not fit) and by `hcpsim plan` when nothing fits.
#include <string>
#include <vector>

#include "engine/memory/memory_model.h"
#include "engine/planning/planner.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::planning {

struct MemoryFix {
  std::vector<std::string> overrides;     // "model.recompute_granularity=full", ... (only what changes)
  double total_bytes = 0;                 // per GPU, with the change
};

// The settings of a candidate that differ from `base`, as scenario overrides (key=value).
std::vector<std::string> changed_overrides(const Scenario& base, const Scenario& changed);

// At most `count` changes of the layout (tp, cp, comm type, pp, vpp, micro-batch, recomputation,
// optimizer) on the scenario's own GPUs that validate and fit, fewest changed settings first, then
// least memory. Empty when none fits.
std::vector<MemoryFix> memory_fixes(const Scenario& s, const MemoryOptions& memory, std::size_t count = 3);

// "Rejected for memory: 98.8 GiB per GPU of 80.0 GiB (18.8 GiB over)": the sentence `validate`
// prints, followed by the fixes ("fits with model.recompute_granularity=full (67.8 GiB)").
std::vector<std::string> memory_warning(const Scenario& s, const MemoryEstimate& m,
                                        const std::vector<MemoryFix>& fixes);

}  // namespace hcpsim::planning
