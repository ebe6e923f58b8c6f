#include "engine/planning/planner_slices.h"

#include <algorithm>
#include <cmath>
#include <map>
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

// The K-th best metric value of the predictions made, one per label (its best); NaN below K labels.
double kth_best(const std::vector<PointResult>& rs, const std::function<std::string(std::size_t)>& plain_label,
                const std::string& metric, int top) {
  const bool higher = metric_higher_is_better(metric);
  std::map<std::string, double> best;
  for (std::size_t k = 0; k < rs.size(); ++k) {
    if (rs[k].status != PointStatus::Ok) continue;
    const double v = metric_value(rs[k], metric);
    if (std::isnan(v)) continue;   // not predicted (yet)
    const auto [it, added] = best.emplace(plain_label(k), v);
    if (!added) it->second = higher ? std::max(it->second, v) : std::min(it->second, v);
  }
  std::vector<double> v;
  for (const auto& [label, x] : best) v.push_back(x);
  if (top < 1 || v.size() < static_cast<std::size_t>(top)) return std::nan("");
  std::sort(v.begin(), v.end(), [&](double a, double b) { return higher ? a > b : a < b; });
  return v[static_cast<std::size_t>(top) - 1];
}

}  // namespace

void predict_pruned(const SliceOrder& o, const std::vector<std::string>& keys, const SliceBounds& bounds,
                    const std::function<std::string(std::size_t)>& plain_label, const std::string& metric,
                    const PlanOptions& options, const std::function<void(std::size_t)>& fn,
                    std::vector<PointResult>& rs) {
  std::unordered_map<std::string, std::size_t> slice_of;
  for (std::size_t i = 0; i < o.firsts.size(); ++i) slice_of.emplace(keys[o.firsts[i]], i);
  std::vector<std::vector<std::size_t>> members(o.firsts.size());   // items of each slice, ascending
  for (std::size_t k = 0; k < keys.size(); ++k) members[slice_of.at(keys[k])].push_back(k);
  std::vector<std::size_t> small, large;
  for (std::size_t i = 0; i < o.firsts.size(); ++i) (o.tasks[i] < options.prune_above_tasks ? small : large).push_back(i);
  // The first item of each slice (few large graphs at once), then the others from the cache.
  auto run = [&](const std::vector<std::size_t>& slices) {
    std::vector<std::size_t> firsts, rest;
    std::vector<double> weight;
    for (std::size_t i : slices) {
      firsts.push_back(o.firsts[i]);
      weight.push_back(o.tasks[i] < kSmallSliceTasks ? 0.0 : o.tasks[i]);
      for (std::size_t k : members[i])
        if (k != o.firsts[i]) rest.push_back(k);
    }
    std::sort(rest.begin(), rest.end());
    for_each_index_within(firsts.size(), options.threads, weight, kSliceTasksAtOnce, [&](std::size_t i) { fn(firsts[i]); });
    for_each_index(rest.size(), options.threads, [&](std::size_t i) { fn(rest[i]); });
  };
  run(small);
  const double kth = kth_best(rs, plain_label, metric, options.top);
  const bool higher = metric_higher_is_better(metric);
  // Strictly worse, with a margin far above rounding: a layout equal to the K-th could still be listed.
  auto below = [&](double b) { return !std::isnan(b) && (higher ? b < kth * (1 - 1e-9) : b > kth * (1 + 1e-9)); };
  std::vector<std::vector<double>> bound(o.firsts.size());   // by slice, as members[i]
  if (!std::isnan(kth))
    for_each_index(large.size(), options.threads, [&](std::size_t j) {
      const std::size_t i = large[j];
      bound[i] = bounds(o.firsts[i], members[i]);
    });
  std::vector<std::size_t> keep;
  for (std::size_t i : large) {
    const bool out = !std::isnan(kth) && bound[i].size() == members[i].size() &&
                     std::all_of(bound[i].begin(), bound[i].end(), [&](double b) { return below(b); });
    if (!out) {
      keep.push_back(i);
      continue;
    }
    for (std::size_t k : members[i]) {
      rs[k].status = PointStatus::Invalid;
      rs[k].message = kNotPredicted;
    }
  }
  run(keep);
}

}  // namespace hcpsim::planning
