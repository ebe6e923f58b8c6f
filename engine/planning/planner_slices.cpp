#include "engine/planning/planner_slices.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>
#include <unordered_set>

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

}  // namespace hcpsim::planning
