#include "engine/planning/min_gpus.h"

#include <cstdio>
#include <stdexcept>

namespace hcpsim::planning {

std::vector<int> gpu_counts(int gpus_per_node, int gpus_max) {
  std::vector<int> counts;
  for (int d : divisors(gpus_per_node))
    if (d < gpus_per_node && d <= gpus_max) counts.push_back(d);
  for (int g = gpus_per_node; g <= gpus_max; g += gpus_per_node) counts.push_back(g);
  return counts;
}

bool any_layout_fits(const Scenario& base, int gpus, const PlanOptions& options, const ScenarioValidator& validate) {
  for (const PlanCandidate& c : enumerate_candidates(base, gpus, options.search, options.memory)) {
    const Scenario s = apply_candidate(base, c, gpus);
    if (!validate(s).has_errors() && estimate_memory(s, options.memory).fits) return true;
  }
  return false;
}

MinGpusOutcome min_gpus(const Scenario& base, const PlanOptions& options, const MinGpusOptions& target,
                        const ScenarioValidator& validate, const ScenarioPredictor& predict, const SliceKey& slice_key) {
  if (target.gpus_max <= 0) throw std::invalid_argument("--gpus-max: needed with --min-gpus (the largest GPU count to try)");
  MinGpusOutcome out;
  for (int gpus : gpu_counts(base.cluster.gpus_per_node, target.gpus_max)) {
    if (!any_layout_fits(base, gpus, options, validate)) {
      out.tried.push_back(std::to_string(gpus) + " GPUs: no layout validates and fits");
      continue;
    }
    PlanOptions o = options;
    o.gpus = gpus;
    PlanOutcome p = plan(base, o, validate, predict, slice_key);
    if (p.best.empty()) {
      out.tried.push_back(std::to_string(gpus) + " GPUs: no fitting layout could be predicted");
      continue;
    }
    const double job_tokens_per_s = p.best.front().result.metrics.tokens_per_s_per_gpu * gpus;
    if (target.tokens_per_s > 0 && !(job_tokens_per_s >= target.tokens_per_s)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%d GPUs: the best layout reaches %.4g tokens/s, below the %.4g needed", gpus,
                    job_tokens_per_s, target.tokens_per_s);
      out.tried.push_back(buf);
      continue;
    }
    out.gpus = gpus;
    out.plan = std::move(p);
    return out;
  }
  return out;
}

}  // namespace hcpsim::planning
