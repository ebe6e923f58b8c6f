#pragma once
// `hcpsim plan --min-gpus`: the smallest GPU count (within a maximum) on which some layout validates
// and fits in memory and, when a target is given, whose best layout reaches the tokens/s the target
// needs (a throughput, or a token budget within a time).
#include <string>
#include <vector>

#include "engine/planning/planner.h"

namespace hcpsim::planning {

struct MinGpusOptions {
  int gpus_max = 0;                 // the largest count tried (required)
  double tokens_per_s = 0;          // whole-job throughput the best layout must reach (0 = only fit)
};

struct MinGpusOutcome {
  int gpus = 0;                     // 0 = none within gpus_max
  PlanOutcome plan;                 // the plan on `gpus` GPUs
  std::vector<std::string> tried;   // one line per count tried that did not qualify
};

// The GPU counts tried: the divisors of gpus_per_node below it, then its multiples, up to gpus_max.
std::vector<int> gpu_counts(int gpus_per_node, int gpus_max);

// True when some candidate on `gpus` GPUs validates and fits (stops at the first one).
bool any_layout_fits(const Scenario& base, int gpus, const PlanOptions& options, const ScenarioValidator& validate);

MinGpusOutcome min_gpus(const Scenario& base, const PlanOptions& options, const MinGpusOptions& target,
                        const ScenarioValidator& validate, const ScenarioPredictor& predict,
                        const SliceKey& slice_key = nullptr);

}  // namespace hcpsim::planning
