#pragma once
// Capacity planner: for a scenario's model, sequence length and cluster, enumerate every
// (tp, cp, dp, cp_comm_type, hierarchical split, order) on N GPUs, drop what validation rejects
// and what does not fit in GPU memory, predict the rest, and return the best K with a sentence each.
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/core/diagnostics.h"
#include "engine/memory/memory_model.h"
#include "engine/planning/sweep_result.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::planning {

struct PlanCandidate {
  int tp = 1;
  int cp = 1;
  int dp = 1;
  CpCommType comm = CpCommType::P2P;
  std::vector<int> hierarchical;          // [A, P] for a2a+p2p, else empty
  std::string order = "tp-cp-ep-dp-pp";
  std::string label() const;              // "tp=2 cp=16 a2a+p2p [4,4] tp-cp-ep-dp-pp"
};

struct PlanOptions {
  int gpus = 0;                           // 0 = the scenario's world size
  int top = 5;                            // how many to return
  int jobs = 1;                           // > 1: predict in that many worker processes
  std::string metric = "step_s";          // ranking metric (see metric_names())
  MemoryOptions memory;
};

struct PlanEntry {
  PlanCandidate candidate;
  Scenario scenario;                      // base with the candidate applied
  PointResult result;                     // predicted metrics
  MemoryEstimate memory;
  std::string explanation;                // one sentence
};

struct PlanOutcome {
  std::vector<PlanEntry> best;            // at most top, best first
  std::size_t enumerated = 0;
  std::size_t invalid = 0;                // rejected by validation
  std::size_t out_of_memory = 0;          // valid but above GPU memory
  std::size_t failed = 0;                 // the predictor threw
  std::map<std::string, std::size_t> invalid_reasons;   // first error message -> count
  std::vector<std::string> notes;         // facts about the whole space ("pure a2a caps at cp 4 ...")
};

using ScenarioValidator = std::function<Diagnostics(const Scenario&)>;
// Predicts one valid, fitting scenario; may throw (the candidate is then counted as failed).
using ScenarioPredictor = std::function<PointMetrics(const Scenario&)>;

// Every candidate on `gpus` GPUs (tp divides gpus_per_node; cp*tp*pp divides gpus; for a2a+p2p
// every split with 2 <= A < cp; the tp-cp-ep-pp-dp order only when pp > 1 and dp > 1, the only
// case where it gives other groups).
// Throws std::invalid_argument when gpus is not a multiple of gpus_per_node (or a divisor of it).
std::vector<PlanCandidate> enumerate_candidates(const Scenario& base, int gpus);

// The base scenario with a candidate applied (cluster resized to `gpus`).
Scenario apply_candidate(const Scenario& base, const PlanCandidate& c, int gpus);

PlanOutcome plan(const Scenario& base, const PlanOptions& options, const ScenarioValidator& validate,
                 const ScenarioPredictor& predict);

// The one-sentence explanation of an entry relative to the best one (`best` may be the entry itself).
std::string explain(const PlanEntry& e, const PlanEntry& best, const std::string& metric);

}  // namespace hcpsim::planning
