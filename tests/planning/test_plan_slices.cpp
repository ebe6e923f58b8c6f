// How the planner spends prediction time and memory: one item per model-parallel slice first, the
// largest first; at most a budget of estimated graph tasks in flight; the two placements of pp in
// dist.order share one backend run because they give the same numbers; and a plan on two threads
// ranks exactly as on one.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "engine/app/backend_catalog.h"
#include "engine/app/point_eval.h"
#include "engine/planning/planner.h"
#include "engine/planning/planner_slices.h"
#include "engine/scenario/loader.h"
#include "engine/validate/validate.h"

namespace hcpsim::planning {
namespace {

TEST(PlanSlices, OrderPutsOneItemPerKeyFirstLargestFirst) {
  const std::vector<std::string> keys{"a", "b", "a", "c", "b", "c", "d"};
  const std::map<std::string, double> tasks{{"a", 10}, {"b", 30}, {"c", 30}, {"d", 5}};
  std::vector<std::size_t> asked;
  const SliceOrder o = slice_order(keys, [&](std::size_t i) {
    asked.push_back(i);
    return tasks.at(keys[i]);
  });
  EXPECT_EQ(asked, (std::vector<std::size_t>{0, 1, 3, 6}));              // first item of each key only
  EXPECT_EQ(o.firsts, (std::vector<std::size_t>{1, 3, 0, 6}));           // b and c tie: item order
  EXPECT_EQ(o.tasks, (std::vector<double>{30, 30, 10, 5}));
  EXPECT_EQ(o.rest, (std::vector<std::size_t>{2, 4, 5}));
}

TEST(PlanSlices, WithinBudgetRunsEveryItemOnceAndKeepsTheBudget) {
  const std::vector<double> weight{9, 9, 1, 1, 1, 12, 1, 1, 5, 5};   // 12 is above the budget: alone
  const double budget = 10;
  std::vector<std::atomic<int>> calls(weight.size());
  std::mutex m;
  double in_flight = 0, most = 0;
  int running = 0;
  bool twelve_not_alone = false;
  for_each_index_within(weight.size(), 3, weight, budget, [&](std::size_t k) {
    {
      std::lock_guard<std::mutex> lock(m);
      in_flight += weight[k];
      ++running;
      most = std::max(most, in_flight);
      if ((weight[k] == 12 && running > 1) || (running > 1 && in_flight > 12)) twelve_not_alone = true;
    }
    ++calls[k];
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::lock_guard<std::mutex> lock(m);
    in_flight -= weight[k];
    --running;
  });
  for (std::size_t k = 0; k < weight.size(); ++k) EXPECT_EQ(calls[k].load(), 1) << k;
  EXPECT_LE(most, 12.0);   // the budget is max(10, the largest weight)
  EXPECT_FALSE(twelve_not_alone);
}

TEST(PlanSlices, WithinBudgetRethrowsTheFirstError) {
  std::atomic<int> done{0};
  EXPECT_THROW(for_each_index_within(50, 2, std::vector<double>(50, 1.0), 1.0,
                                     [&](std::size_t k) {
                                       if (k == 7) throw std::runtime_error("seven");
                                       ++done;
                                     }),
               std::runtime_error);
  EXPECT_LT(done.load(), 50);
}

// Llama-3-8B at 64K on two DGX H100 nodes with pp 2 and dp 2 (the case where the two pp placements
// are different layouts of the whole job).
Scenario two_orders_base(const std::string& order) {
  LoadOptions o;
  o.overrides = {"cluster.nodes=2", "model.tensor_model_parallel_size=2", "model.context_parallel_size=2",
                 "model.pipeline_model_parallel_size=2", "model.virtual_pipeline_model_parallel_size=1",
                 "train.global_batch_size=8", "dist.order=" + order};
  return load_scenario_file(HCPSIM_SOURCE_DIR "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml", o);
}

TEST(PlanSlices, PipelinePlacementInOrderSharesOneRunWithTheSameNumbers) {
  const Scenario a = two_orders_base("tp-cp-ep-dp-pp");
  const Scenario b = two_orders_base("tp-cp-ep-pp-dp");
  ASSERT_FALSE(validate(a).has_errors());
  ASSERT_FALSE(validate(b).has_errors());
  EXPECT_EQ(layer_cache_key(a, "analytic"), layer_cache_key(b, "analytic"));
  const BackendRegistry& reg = app::backend_registry();
  const PointMetrics ma = predict_scenario(a, "analytic", reg);   // no cache: each runs its own graph
  const PointMetrics mb = predict_scenario(b, "analytic", reg);
  EXPECT_EQ(ma.attention_forward_s, mb.attention_forward_s);
  EXPECT_EQ(ma.attention_backward_s, mb.attention_backward_s);
  EXPECT_EQ(ma.layer_forward_s, mb.layer_forward_s);
  EXPECT_EQ(ma.layer_backward_s, mb.layer_backward_s);
  EXPECT_EQ(ma.exposed_comm_s, mb.exposed_comm_s);
  // Whole jobs, not folded: the order decides the ranks of every group, so the runs stay apart.
  Scenario wa = a, wb = b;
  wa.simulation.fold = wb.simulation.fold = FoldMode::Off;
  EXPECT_NE(layer_cache_key(wa, "analytic"), layer_cache_key(wb, "analytic"));
}

TEST(PlanSlices, TwoThreadsRankExactlyAsOne) {
  LoadOptions lo;
  lo.overrides = {"cluster.nodes=2", "train.global_batch_size=16"};
  const Scenario base = load_scenario_file(HCPSIM_SOURCE_DIR "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml", lo);
  const BackendRegistry& reg = app::backend_registry();
  auto run = [&](int threads, std::map<std::string, int>& runs) {
    LayerCache cache;
    std::mutex m;
    PlanOptions o;
    o.top = 8;
    o.threads = threads;
    return plan(base, o, [](const Scenario& s) { return validate(s); },
                [&](const Scenario& s) {
                  const std::string key = layer_cache_key(s, "analytic");
                  LayerCache local;
                  {
                    std::lock_guard<std::mutex> lock(m);
                    if (cache.count(key) > 0) local.emplace(key, cache.at(key));
                    else ++runs[key];
                  }
                  const PointMetrics r = predict_scenario(s, "analytic", reg, &local);
                  std::lock_guard<std::mutex> lock(m);
                  cache.emplace(key, local.at(key));
                  return r;
                },
                [](const Scenario& s) { return layer_cache_key(s, "analytic"); });
  };
  std::map<std::string, int> one_runs, two_runs;
  const PlanOutcome one = run(1, one_runs);
  const PlanOutcome two = run(2, two_runs);
  ASSERT_FALSE(one.best.empty());
  ASSERT_EQ(one.best.size(), two.best.size());
  for (std::size_t i = 0; i < one.best.size(); ++i) {
    EXPECT_EQ(one.best[i].candidate.label(), two.best[i].candidate.label());
    EXPECT_EQ(one.best[i].result.metrics.step_s, two.best[i].result.metrics.step_s);
  }
  EXPECT_EQ(one.relabeled, two.relabeled);
  // The first candidate of each slice runs before the others: with two threads no slice runs twice.
  for (const auto& [key, n] : two_runs) EXPECT_EQ(n, 1) << key;
  EXPECT_EQ(one_runs.size(), two_runs.size());
}

}  // namespace
}  // namespace hcpsim::planning
