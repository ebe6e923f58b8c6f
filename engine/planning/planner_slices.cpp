#include "engine/planning/planner_slices.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <unordered_map>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>
#include <unordered_set>

#include "engine/planning/plan_check.h"
#include "engine/step/step_model.h"
#include "engine/validate/feasibility.h"

namespace hcpsim::planning {

double slice_graph_tasks(const Scenario& s) {
  Scenario t = step::model_parallel_slice(s);
  t.simulation.layers = 1;
  return estimated_graph_tasks(t);
}

SliceOrder slice_order(const std::vector<std::string>& keys, const std::function<double(std::size_t)>& tasks_of) {
  SliceOrder o;
  std::unordered_set<std::string> seen;
  std::vector<std::pair<double, std::size_t>> firsts;   // (estimated tasks, item)
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (seen.insert(keys[i]).second) firsts.emplace_back(tasks_of(i), i);
    else o.rest.push_back(i);
  }
  std::stable_sort(firsts.begin(), firsts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [tasks, i] : firsts) {
    o.firsts.push_back(i);
    o.tasks.push_back(tasks);
  }
  return o;
}

void for_each_index_within(std::size_t n, int threads, const std::vector<double>& weight, double budget,
                           const std::function<void(std::size_t)>& fn) {
  const std::size_t t = std::min<std::size_t>(n, static_cast<std::size_t>(std::max(1, threads)));
  if (t <= 1) {
    for (std::size_t k = 0; k < n; ++k) fn(k);
    return;
  }
  auto weight_of = [&](std::size_t k) { return k < weight.size() ? weight[k] : 0.0; };
  for (std::size_t k = 0; k < n; ++k) budget = std::max(budget, weight_of(k));
  std::vector<std::size_t> left(n);   // not started, ascending
  std::iota(left.begin(), left.end(), std::size_t{0});
  std::mutex mutex;
  std::condition_variable changed;
  double running = 0;          // weights of the k in flight
  std::size_t in_flight = 0;   // with none in flight any k may start (sums of doubles need not return to 0)
  bool failed = false;
  std::exception_ptr error;
  auto work = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      auto next = left.end();
      changed.wait(lock, [&] {
        next = std::find_if(left.begin(), left.end(), [&](std::size_t k) { return in_flight == 0 || running + weight_of(k) <= budget; });
        return failed || left.empty() || next != left.end();
      });
      if (failed || left.empty()) return;
      const std::size_t k = *next;
      left.erase(next);
      running += weight_of(k);
      ++in_flight;
      lock.unlock();
      try {
        fn(k);
      } catch (...) {
        lock.lock();
        if (!failed) error = std::current_exception();
        failed = true;
        lock.unlock();
      }
      lock.lock();
      running = --in_flight == 0 ? 0.0 : running - weight_of(k);
      changed.notify_all();
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t i = 1; i < t; ++i) pool.emplace_back(work);
  work();
  for (std::thread& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}


namespace {

// The state of predict_pruned: the slices' items, their bounds once asked, and the checks against
// the K-th best so far (which only rises as more items are predicted, so an item left out against
// it stays below the final one: never listed, never the same numbers as a listed one).
class Pruner {
 public:
  Pruner(const SliceOrder& o, const std::vector<std::string>& keys, const SliceBounds& bounds,
         const std::function<std::string(std::size_t)>& plain_label, const std::string& metric,
         const PlanOptions& options, const std::function<void(std::size_t)>& fn, std::vector<PointResult>& rs)
      : o_(o), bounds_(bounds), metric_(metric), options_(options), fn_(fn), rs_(rs),
        higher_(metric_higher_is_better(metric)), members_(o.firsts.size()), label_(keys.size()),
        bound_(keys.size(), std::nan("")), bounded_(o.firsts.size(), 0) {
    std::unordered_map<std::string, std::size_t> slice_of;
    for (std::size_t i = 0; i < o.firsts.size(); ++i) slice_of.emplace(keys[o.firsts[i]], i);
    for (std::size_t k = 0; k < keys.size(); ++k) members_[slice_of.at(keys[k])].push_back(k);
    for_each_index(keys.size(), options.threads, [&](std::size_t k) { label_[k] = plain_label(k); });
  }

  // Runs `slices` (largest first): the first item of each (few large graphs at once), then the
  // others from the cache, the most promising first, each left out when its bound is below the
  // K-th best at the time.
  void run(const std::vector<std::size_t>& slices) {
    std::vector<std::size_t> firsts, rest;
    std::vector<double> weight;
    for (std::size_t i : slices) {
      firsts.push_back(o_.firsts[i]);
      weight.push_back(o_.tasks[i] < kSmallSliceTasks ? 0.0 : o_.tasks[i]);
      for (std::size_t k : members_[i])
        if (k != o_.firsts[i]) rest.push_back(k);
    }
    std::sort(rest.begin(), rest.end());
    for_each_index_within(firsts.size(), options_.threads, weight, kSliceTasksAtOnce, [&](std::size_t i) { fn_(firsts[i]); });
    bound_slices(slices);
    // No bound (NaN) first, then the best bounds; ties in item order.
    auto key = [&](std::size_t k) { return std::isnan(bound_[k]) ? -INFINITY : higher_ ? -bound_[k] : bound_[k]; };
    std::stable_sort(rest.begin(), rest.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
    constexpr std::size_t kChunk = 128;   // items predicted between two looks at the K-th best
    for (std::size_t at = 0; at < rest.size(); at += kChunk) {
      const double kth = kth_best();
      std::vector<std::size_t> keep;
      for (std::size_t j = at; j < std::min(rest.size(), at + kChunk); ++j) {
        if (below(kth, bound_[rest[j]])) leave_out(rest[j]);
        else keep.push_back(rest[j]);
      }
      std::sort(keep.begin(), keep.end());
      for_each_index(keep.size(), options_.threads, [&](std::size_t j) { fn_(keep[j]); });
    }
  }

  // `slices` without those whose every item is bounded below the K-th best now (left out).
  std::vector<std::size_t> prune(const std::vector<std::size_t>& slices) {
    const double kth = kth_best();
    if (std::isnan(kth)) return slices;
    bound_slices(slices);
    std::vector<std::size_t> keep;
    for (std::size_t i : slices) {
      const auto& m = members_[i];
      if (!std::all_of(m.begin(), m.end(), [&](std::size_t k) { return below(kth, bound_[k]); })) {
        keep.push_back(i);
        continue;
      }
      for (std::size_t k : m) leave_out(k);
    }
    return keep;
  }

 private:
  // The K-th best metric value of the predictions made, one per label (its best); NaN below K labels.
  double kth_best() const {
    std::map<std::string_view, double> best;
    for (std::size_t k = 0; k < rs_.size(); ++k) {
      if (rs_[k].status != PointStatus::Ok) continue;
      const double v = metric_value(rs_[k], metric_);
      if (std::isnan(v)) continue;   // not predicted (yet)
      const auto [it, added] = best.emplace(label_[k], v);
      if (!added) it->second = higher_ ? std::max(it->second, v) : std::min(it->second, v);
    }
    std::vector<double> v;
    for (const auto& [label, x] : best) v.push_back(x);
    const int top = options_.top;
    if (top < 1 || v.size() < static_cast<std::size_t>(top)) return std::nan("");
    std::sort(v.begin(), v.end(), [&](double a, double b) { return higher_ ? a > b : a < b; });
    return v[static_cast<std::size_t>(top) - 1];
  }

  // Strictly worse, with a margin far above rounding: a layout equal to the K-th could still be listed.
  bool below(double kth, double b) const {
    if (std::isnan(kth) || std::isnan(b)) return false;
    return higher_ ? b < kth * (1 - 1e-9) : b > kth * (1 + 1e-9);
  }

  // The bounds of the items of `slices` not asked yet (once per slice, on the threads).
  void bound_slices(const std::vector<std::size_t>& slices) {
    std::vector<std::size_t> need;
    for (std::size_t i : slices)
      if (!bounded_[i]) need.push_back(i);
    for_each_index(need.size(), options_.threads, [&](std::size_t j) {
      const std::size_t i = need[j];
      const std::vector<double> b = bounds_(o_.firsts[i], members_[i]);
      if (b.size() == members_[i].size())
        for (std::size_t m = 0; m < b.size(); ++m) bound_[members_[i][m]] = b[m];
      bounded_[i] = 1;
    });
  }

  void leave_out(std::size_t k) {
    rs_[k].status = PointStatus::Invalid;
    rs_[k].message = kNotPredicted;
  }

  const SliceOrder& o_;
  const SliceBounds& bounds_;
  const std::string& metric_;
  const PlanOptions& options_;
  const std::function<void(std::size_t)>& fn_;
  std::vector<PointResult>& rs_;
  bool higher_;
  std::vector<std::vector<std::size_t>> members_;   // items of each slice, ascending
  std::vector<std::string> label_;                  // plain_label of each item
  std::vector<double> bound_;                       // each item's bound in the metric's terms; NaN: none (yet)
  std::vector<char> bounded_;                       // by slice: its bounds were asked
};

}  // namespace

void predict_pruned(const SliceOrder& o, const std::vector<std::string>& keys, const SliceBounds& bounds,
                    const std::function<std::string(std::size_t)>& plain_label, const std::string& metric,
                    const PlanOptions& options, const std::function<void(std::size_t)>& fn,
                    std::vector<PointResult>& rs) {
  Pruner p(o, keys, bounds, plain_label, metric, options, fn, rs);
  // o.firsts is largest first: walk it from the end for growing sizes. A round holds the slices from
  // the smallest left up to twice its size; within a round, largest first (ascending index).
  std::size_t left = o.firsts.size();
  std::vector<std::size_t> round;
  while (left > 0 && o.tasks[left - 1] < options.prune_above_tasks) round.insert(round.begin(), --left);
  p.run(round);
  while (left > 0) {
    const double limit = 2 * o.tasks[left - 1];
    round.assign(1, --left);
    while (left > 0 && o.tasks[left - 1] < limit) round.insert(round.begin(), --left);
    p.run(p.prune(round));
  }
}

}  // namespace hcpsim::planning
