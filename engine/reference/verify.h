#pragma once
// The numerical proof of a schedule: build the graph with payloads, run it on the reference
// executor and compare every rank's O, dQ, dK, dV with dense single-device attention.
// Error measure per tensor: max |x - ref| / max |ref| over the whole tensor (every layer and
// every DP/PP replica); dK/dV of KV heads replicated over TP ranks (g < tp) are summed first.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/reference/executor.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::reference {

struct VerifyOptions {
  ExecOptions exec;
  double tolerance = 0;                 // 0: 1e-5 in double, 1e-4 in float
  bool silent_disable_pitfall = false;  // build the silent-disable pitfall graph instead of the real one
};

struct VerifyResult {
  double out = 0, dq = 0, dk = 0, dv = 0;   // max relative errors
  double tolerance = 0;
  bool ok = false;
  std::size_t tasks = 0;
  int layers = 0;
  std::string detail;                   // first problem found (uncovered token, ...), or empty
};

// A CPU-sized copy of a scenario that keeps tp, cp, the hierarchical split, the mask, the per-layer
// comm types (one layer per distinct type, first-appearance order) and the query/KV head ratio:
// S = 2*cp*4, head dim 8, heads per TP rank the smallest count the a2a degrees allow, dp = pp = 1,
// micro-batch <= 2. Throws std::invalid_argument when the scenario's head ratio is not an integer.
Scenario shrink_for_cpu(const Scenario& s);

// Compares every rank's O, dQ, dK, dV (results[rank][layer], as the executor or a multi-process
// run produced them) with dense attention on the same inputs; `layers` layers, data seed `seed`.
// Fills everything but `tasks`. `use_float`: the run computed in float (DSA's top-k selection is then
// made on float-rounded indexer inputs, as the run made it).
VerifyResult compare_with_dense(const Scenario& s, const RankLayout& layout, int layers, std::uint64_t seed,
                                double tolerance, const std::vector<std::map<int, RankLayerResult>>& results,
                                bool use_float = false);

// Runs the check on `s` as given (no shrinking); forward and backward, s.simulation.layers layers.
VerifyResult verify_scenario(const Scenario& s, const VerifyOptions& opt = {});

}  // namespace hcpsim::reference
