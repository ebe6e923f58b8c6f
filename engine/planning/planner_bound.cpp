#include "engine/planning/planner_bound.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "engine/cost/cost_model.h"
#include "engine/scenario/pipeline_split.h"

namespace hcpsim::planning {
namespace {

// Ranks in the KV ring of one layer's schedule: cp for p2p, the second level of a2a+p2p (the whole
// CP group when the first level is 1); 0 when the layer's schedule is not the ring builder's.
int ring_size(const Scenario& s, CpCommType c) {
  if (s.cp() < 2) return 0;
  if (c == CpCommType::P2P) return s.cp();
  if (c == CpCommType::A2AP2P && s.model.hierarchical_context_parallel_sizes.size() == 2)
    return s.model.hierarchical_context_parallel_sizes[1];
  return 0;
}

}  // namespace

double step_lower_bound_s(const Scenario& s) { return step_lower_bound_given_overhead_s(s, CostModel(s).kernel_overhead_s()); }

double step_lower_bound_given_overhead_s(const Scenario& s, double overhead_s) {
  if (s.train.mode == TrainMode::Prefill || s.hyperparallel_cp() || s.model.ffn_hidden_size <= 0) return 0.0;
  // The smallest ring over the layers' comm types (a type without a ring: no bound).
  int R = std::numeric_limits<int>::max();
  for (CpCommType c : s.model.cp_comm_type) R = std::min(R, ring_size(s, c));
  if (s.model.cp_comm_type.empty() || R < 2) return 0.0;
  // Compute kernels of one rank in one layer (engine/schedule/p2p_ring.cpp): forward, the K/V
  // concatenation, R attention steps, R LSE merges and the output correction; backward, the K/V
  // copy and per step the attention backward, the dQ accumulation and the dK/dV addition. Each costs
  // at least the kernel overhead (CostModel::compute_seconds adds it to every compute kernel, and a
  // straggler's slowdown only raises it). Under processor sharing the kernels of a rank get at most
  // one second of work per second, so a layer pass's span on that rank, and the slowest rank's span
  // the step model uses, is at least their sum.
  const double forward_s = (2.0 * R + 2.0) * overhead_s;
  const double backward_s = (3.0 * R + 1.0) * overhead_s;
  // The pipeline replay runs each stage's m micro-batches x chunks one at a time, each at least its
  // layers' forward (and backward, and the full recomputation's forward again); the step ends after
  // the busiest stage. Elementwise kernels, embedding, output layer, transfers, DP and optimizer only add.
  int stage_layers = 0;
  try {
    for (const std::vector<int>& chunks : pipeline_split(s.model))
      stage_layers = std::max(stage_layers, std::accumulate(chunks.begin(), chunks.end(), 0));
  } catch (const std::exception&) {
    return 0.0;   // the split does not validate: no bound
  }
  const int m = s.micro_batches();
  if (m < 1 || stage_layers < 1) return 0.0;
  const bool full_uniform = s.model.recompute_granularity == RecomputeGranularity::Full &&
                            s.model.recompute_method == RecomputeMethod::Uniform;
  const double layer_s = forward_s + backward_s + (full_uniform ? forward_s : 0.0);
  return static_cast<double>(m) * stage_layers * layer_s;
}

double metric_bound(const Scenario& s, const std::string& metric, double bound_s) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (!(bound_s > 0)) return kNaN;
  if (metric == "step_s") return bound_s;
  if (metric == "tokens_per_s_per_gpu") {
    const double tokens = static_cast<double>(s.global_batch()) * static_cast<double>(s.model.seq_length);
    return tokens / bound_s / s.world_size();
  }
  return kNaN;
}

}  // namespace hcpsim::planning
