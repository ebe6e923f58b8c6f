#pragma once
// A lower bound on the step time the planner's predictor gives a training layout, computed without
// building the layer graph (internal to the planner): it lets `plan` leave out model-parallel slices
// that cannot reach the listed layouts. Why it is a bound, term by term: docs/planning.md
// ("Leaving out slices that cannot place") and the comments in planner_bound.cpp.
#include <string>
#include <vector>

#include "engine/cost/cost_model.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::planning {

// Lower bounds on one rank's span of one layer pass (what the report's slowest-rank layer time is
// at least), seconds, for a layer whose schedule runs the ring builder's KV ring.
struct PassBound {
  double kernels_s = 0;     // its compute kernels, each at least the kernel overhead
  double exchanges_s = 0;   // its ring exchanges, one after the other, each at least its transfers
  double seconds() const { return kernels_s > exchanges_s ? kernels_s : exchanges_s; }
};
struct LayerBound {
  PassBound forward, backward;
};

// The bound of one layer of schedule type `c` in `s`; all zero when the type runs no KV ring of 2
// or more ranks. `cost`: the cost model of `s`, or of any scenario with the same cluster section
// apart from the node count (the terms read here are per cluster: kernel overhead, host overheads,
// link efficiencies, NVLinks per GPU).
LayerBound layer_lower_bound(const Scenario& s, CpCommType c, const CostModel& cost);
// The bound of the layer graph the predictor builds for `s`: per pass the smallest over the layers'
// comm types; all zero when nothing can be said (prefill, attention-only layers, HyperParallel, a
// comm type without a ring).
LayerBound layer_lower_bound(const Scenario& s, const CostModel& cost);

// Seconds that the analytic backend's step for `s` cannot go below when its layer times are at
// least `layer` (0 when `layer` is zero or the pipeline split does not validate): for each of the
// busiest stage's layers and every micro-batch, the forward, the backward, and the forward again
// under uniform full recomputation.
double step_lower_bound_s(const Scenario& s, const LayerBound& layer);
// The same with the layer bound of `s` itself on its own cost model.
double step_lower_bound_s(const Scenario& s);
// PlanOptions::step_lower_bounds for the analytic backend: the members' step bounds on the layer
// bound of `layer_run` (computed once), `cost` as for layer_lower_bound.
std::vector<double> step_lower_bounds_s(const std::vector<Scenario>& members, const Scenario& layer_run,
                                        const CostModel& cost);

// The bound in the ranking metric's terms: an upper bound on tokens_per_s_per_gpu, or the step_s
// lower bound; NaN for other metrics or when the step bound is 0.
double metric_bound(const Scenario& s, const std::string& metric, double step_lower_bound_s);

}  // namespace hcpsim::planning
