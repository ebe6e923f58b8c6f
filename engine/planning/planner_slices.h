#pragma once
// How the planner spends its prediction time and memory (internal to the planner): the candidates
// that share a model-parallel slice run the backend once, so the first candidate of each slice is
// predicted before the others, and the slices whose task graph is large are predicted one at a time.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "engine/planning/planner.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::planning {

// Estimated tasks of the slice graphs predicted at once: at most this many, or the largest single
// slice when that is more (about 100 bytes a task), so that the peak memory stays near the largest
// slice's own.
inline constexpr double kSliceTasksAtOnce = 8e6;
// Slices below this many estimated tasks (some tens of MB) run beside any other and do not count.
inline constexpr double kSmallSliceTasks = 2e6;

// An upper estimate of the tasks of the layer graph the predictor builds for `s`: one layer of its
// model-parallel slice (engine/step/step_model.h model_parallel_slice).
double slice_graph_tasks(const Scenario& s);

// The order to predict items 0..n-1 (keys[i]: item i's slice) in: the first item of every distinct
// key, largest estimated graph first (tasks_of(i), asked for those items only; ties in item order),
// then every other item in item order.
struct SliceOrder {
  std::vector<std::size_t> firsts;  // one item per key
  std::vector<double> tasks;        // by position in `firsts`: its estimated graph tasks
  std::vector<std::size_t> rest;    // the other items, ascending
};
SliceOrder slice_order(const std::vector<std::string>& keys, const std::function<double(std::size_t)>& tasks_of);

// Calls fn(k) for every k < n on `threads` threads, preferring small k, while the weights of the k
// running at once sum to at most max(budget, the largest weight): a thread that cannot start the
// next k takes a later one that fits, or waits. Rethrows the first exception of fn after every
// thread stopped.
void for_each_index_within(std::size_t n, int threads, const std::vector<double>& weight, double budget,
                           const std::function<void(std::size_t)>& fn);

// The message of a candidate its slice's bound left out (PointStatus::Invalid).
inline constexpr const char* kNotPredicted = "not predicted: bound below the K-th best";

// Bounds of a slice's items in the metric's terms (NaN: none): bounds(first, members)[j] for item
// members[j], where `first` is the item the slice's backend run is made for.
using SliceBounds = std::function<std::vector<double>(std::size_t first, const std::vector<std::size_t>& members)>;

// The slices of `o` (keys[k]: item k's slice) predicted with fn(k) into `rs`, leaving out what
// cannot place: first the slices below options.prune_above_tasks estimated tasks; then the others in
// rounds of growing size (a round: the smallest slice left and those below twice its estimated
// tasks), each round without the slices whose every item has a bound (asked once per slice, on
// options.threads threads) worse than the K-th best (options.top) of the predictions made before
// the round, one per layout label without dist.order (plain_label(k)). In every slice run, the item
// the graph is built for goes first; the others (from the cache) follow, best bound first, each
// left out when its own bound is worse than the K-th best at the time. Items left out are marked
// kNotPredicted.
void predict_pruned(const SliceOrder& o, const std::vector<std::string>& keys, const SliceBounds& bounds,
                    const std::function<std::string(std::size_t)>& plain_label, const std::string& metric,
                    const PlanOptions& options, const std::function<void(std::size_t)>& fn,
                    std::vector<PointResult>& rs);

}  // namespace hcpsim::planning
