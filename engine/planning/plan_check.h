#pragma once
// Step 1 of a plan: every candidate validated and its memory estimated (on threads), with the verdicts
// counted in candidate order; internal to the planner.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/planning/planner.h"

namespace hcpsim::planning {

// A candidate that validates and fits: its index in the enumeration and its memory.
struct KeptCandidate {
  std::size_t index = 0;
  MemoryEstimate memory;
};

struct CheckedCandidates {
  std::vector<KeptCandidate> kept;        // in candidate order
  std::vector<std::string> verdicts;      // rank > 0: JSON lines for rank 0
};

// Checks candidate i for every i in `which` (ascending). On rank 0 the rejections are counted into
// `out` (invalid / out of memory with their reasons, and the closest misses); on other ranks they
// become verdict lines ({"i", "invalid" or "oom": reason, "bytes"}, or {"i"} for a kept one).
CheckedCandidates check_candidates(const Scenario& base, const std::vector<PlanCandidate>& all,
                                   const std::vector<std::size_t>& which, int gpus, const PlanOptions& options,
                                   const ScenarioValidator& validate, PlanOutcome& out, bool root);

// Rank 0: counts a verdict line of another rank into `out` (keeping at most `keep_misses` closest misses); returns the candidate index when it
// names a kept candidate. Throws std::runtime_error on a malformed line.
std::optional<std::size_t> count_verdict(const std::string& line, const std::vector<PlanCandidate>& all,
                                         double capacity_bytes, std::size_t keep_misses, PlanOutcome& out);

// Calls fn(k) for every k < n on `threads` threads (1: here, in order).
void for_each_index(std::size_t n, int threads, const std::function<void(std::size_t)>& fn);

}  // namespace hcpsim::planning
