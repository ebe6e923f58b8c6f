#pragma once
// A lower bound on the step time the planner's predictor gives a training layout, computed without
// building the layer graph (internal to the planner): it lets `plan` leave out model-parallel slices
// that cannot reach the listed layouts. Why it is a bound, term by term: docs/planning.md
// ("Leaving out slices that cannot place").
#include <string>

#include "engine/scenario/scenario.h"

namespace hcpsim::planning {

// Seconds that the analytic backend's step for `s` cannot go below; 0 when nothing can be said
// (prefill, attention-only layers, comm types without a ring). The bound counts, per layer and pass,
// the compute kernels every rank of a p2p ring (or the ring level of a2a+p2p) runs, each at least the
// cost model's kernel overhead, on one GPU whose compute kernels share one unit of time (processor
// sharing); the pipeline replay runs a stage's forward and backward steps one after the other.
double step_lower_bound_s(const Scenario& s);
// The same with the cost model's per-kernel overhead given (CostModel::kernel_overhead_s: a
// calibration file's value or the default), so that a plan over thousands of layouts of one cluster
// looks it up once.
double step_lower_bound_given_overhead_s(const Scenario& s, double kernel_overhead_s);

// The bound in the ranking metric's terms: an upper bound on tokens_per_s_per_gpu, or the step_s
// lower bound; NaN for other metrics or when the step bound is 0.
double metric_bound(const Scenario& s, const std::string& metric, double step_lower_bound_s);

}  // namespace hcpsim::planning
