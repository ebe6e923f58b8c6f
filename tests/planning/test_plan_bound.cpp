// Leaving out slices that cannot place: the step-time bound is never above the analytic backend's
// predicted step (a property over varied layouts), it says nothing where it has no ring to count,
// and a pruned plan lists exactly what an unpruned one lists.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "engine/app/backend_catalog.h"
#include "engine/app/point_eval.h"
#include "engine/cost/cost_model.h"
#include "engine/planning/planner.h"
#include "engine/planning/planner_bound.h"
#include "engine/planning/planner_slices.h"
#include "engine/schedule/build.h"
#include "engine/scenario/loader.h"
#include "engine/step/step_model.h"
#include "engine/validate/validate.h"

namespace hcpsim::planning {
namespace {

Scenario load(std::vector<std::string> overrides) {
  LoadOptions lo;
  lo.overrides = std::move(overrides);
  return load_scenario_file(HCPSIM_SOURCE_DIR "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml", lo);
}

// Layouts of the 8B job: flat p2p and a2a+p2p rings of 2 to 64 ranks, inside one node, across
// nodes at every hop (tp 8) or at some hops, with and without pipeline and recomputation.
const std::vector<std::vector<std::string>>& bound_cases() {
  static const std::vector<std::vector<std::string>> cases = {
      {"model.context_parallel_size=2"},
      {"model.context_parallel_size=8", "model.recompute_granularity=full"},
      {"cluster.nodes=2", "model.context_parallel_size=16", "model.tensor_model_parallel_size=1"},
      {"cluster.nodes=2", "model.context_parallel_size=8", "model.pipeline_model_parallel_size=2",
       "model.virtual_pipeline_model_parallel_size=2", "train.global_batch_size=16"},
      {"cluster.nodes=2", "model.context_parallel_size=8", "model.cp_comm_type=a2a+p2p",
       "model.hierarchical_context_parallel_sizes=[2,4]", "model.tensor_model_parallel_size=1"},
      {"cluster.nodes=4", "model.context_parallel_size=32", "model.tensor_model_parallel_size=1",
       "model.recompute_granularity=full", "train.micro_batch_size=2", "train.global_batch_size=4"},
      {"cluster.nodes=4", "model.context_parallel_size=16", "model.tensor_model_parallel_size=2",
       "model.pipeline_model_parallel_size=1", "model.recompute_granularity=selective"},
      // Every hop across nodes: one node per TP group.
      {"cluster.nodes=8", "model.context_parallel_size=8", "model.tensor_model_parallel_size=8"},
      {"cluster.nodes=8", "model.context_parallel_size=64", "model.tensor_model_parallel_size=1",
       "model.seq_length=131072"},
      {"cluster.nodes=8", "model.context_parallel_size=32", "model.tensor_model_parallel_size=1",
       "model.cp_comm_type=a2a+p2p", "model.hierarchical_context_parallel_sizes=[2,16]",
       "model.seq_length=131072"},
      {"cluster.nodes=4", "model.context_parallel_size=32", "model.tensor_model_parallel_size=1",
       "model.cp_comm_type=a2a+p2p", "model.hierarchical_context_parallel_sizes=[1,32]"},
      {"cluster.nodes=16", "model.context_parallel_size=16", "model.tensor_model_parallel_size=2",
       "model.pipeline_model_parallel_size=2", "train.global_batch_size=4", "dist.order=tp-cp-ep-pp-dp"},
  };
  return cases;
}

std::string described(const std::vector<std::string>& o) {
  std::string what;
  for (const std::string& x : o) what += x + " ";
  return what;
}

TEST(PlanBound, NeverAbovePredictedStep) {
  const BackendRegistry& reg = app::backend_registry();
  for (const auto& o : bound_cases()) {
    Scenario s = load(o);
    s.simulation.backend = "analytic";
    const std::string what = described(o);
    ASSERT_FALSE(validate(s).has_errors()) << what;
    const double bound = step_lower_bound_s(s);
    const PointMetrics m = predict_scenario(s, "analytic", reg, nullptr);
    EXPECT_GT(bound, 0.0) << what;
    EXPECT_LE(bound, m.step_s) << what;
    // The tokens/s bound is the other side of the same inequality.
    EXPECT_GE(metric_bound(s, "tokens_per_s_per_gpu", bound), m.tokens_per_s_per_gpu) << what;
    // Each pass's bound, and each of its terms, against the layer time the step model reads.
    const LayerBound layer = layer_lower_bound(s, CostModel(s));
    EXPECT_GT(layer.forward.exchanges_s, 0.0) << what;
    EXPECT_GT(layer.backward.exchanges_s, layer.forward.exchanges_s) << what;   // one more exchange, larger ones
    EXPECT_LE(layer.forward.seconds(), m.layer_forward_s) << what;
    EXPECT_LE(layer.backward.seconds(), m.layer_backward_s) << what;
  }
}

// The exchanges term is what a slow ring adds: on a long ring across nodes, whose layer is mostly
// exposed communication, it is well above the kernels' overhead and most of the predicted layer.
TEST(PlanBound, ExchangesDominateOnALongRingAcrossNodes) {
  Scenario s = load({"cluster.nodes=8", "model.context_parallel_size=64", "model.tensor_model_parallel_size=1",
                     "model.seq_length=131072"});
  s.simulation.backend = "analytic";
  const LayerBound b = layer_lower_bound(s, CostModel(s));
  EXPECT_GT(b.forward.exchanges_s, 10 * b.forward.kernels_s);
  EXPECT_GT(b.backward.exchanges_s, 10 * b.backward.kernels_s);
  const PointMetrics m = predict_scenario(s, "analytic", app::backend_registry(), nullptr);
  EXPECT_GT(b.forward.exchanges_s, 0.5 * m.layer_forward_s);
  EXPECT_GT(b.backward.exchanges_s, 0.5 * m.layer_backward_s);
}

// What the bound counts: every rank of the slice's layer graph runs at least 2R + 2 compute kernels
// in the forward and 3R + 1 in the backward (R: the ring's ranks), each costing at least the overhead,
// and R - 1 (forward) and R (backward) send/recv calls.
TEST(PlanBound, CountsNoMoreKernelsThanTheLayerGraphHas) {
  const std::vector<std::pair<std::vector<std::string>, int>> cases = {
      {{"model.context_parallel_size=4"}, 4},
      {{"cluster.nodes=2", "model.context_parallel_size=16", "model.tensor_model_parallel_size=1"}, 16},
      {{"cluster.nodes=2", "model.context_parallel_size=8", "model.cp_comm_type=a2a+p2p",
        "model.hierarchical_context_parallel_sizes=[2,4]", "model.tensor_model_parallel_size=1"}, 4}};
  for (const auto& [o, R] : cases) {
    const Scenario s = step::model_parallel_slice(load(o));
    GraphOptions go = graph_options_from(s);
    ASSERT_TRUE(go.whole_layer);
    const TaskGraph g = build_task_graph(s, RankLayout::from_scenario(s), go);
    std::map<int, int> forward, backward, forward_sr, backward_sr;
    for (std::size_t i = 0; i < g.size(); ++i) {
      const Task& t = g.task(static_cast<TaskId>(i));
      if (t.layer != 0) continue;
      if (t.kind == TaskKind::SendRecv) ++(t.pass == Pass::Forward ? forward_sr : backward_sr)[t.rank];
      if (is_communication(t.kind)) continue;
      ++(t.pass == Pass::Forward ? forward : backward)[t.rank];
    }
    ASSERT_EQ(forward.size(), static_cast<std::size_t>(s.world_size())) << o.back();
    for (const auto& [rank, n] : forward) EXPECT_GE(n, 2 * R + 2) << o.back() << " rank " << rank;
    for (const auto& [rank, n] : backward) EXPECT_GE(n, 3 * R + 1) << o.back() << " rank " << rank;
    ASSERT_EQ(forward_sr.size(), static_cast<std::size_t>(s.world_size())) << o.back();
    for (const auto& [rank, n] : forward_sr) EXPECT_EQ(n, R - 1) << o.back() << " rank " << rank;
    for (const auto& [rank, n] : backward_sr) EXPECT_EQ(n, R) << o.back() << " rank " << rank;
    const double overhead_s = CostModel(s).kernel_overhead_s();
    const LayerBound b = layer_lower_bound(s, CostModel(s));
    EXPECT_NEAR(b.forward.kernels_s / overhead_s, 2.0 * R + 2, 1e-9);
    EXPECT_NEAR(b.backward.kernels_s / overhead_s, 3.0 * R + 1, 1e-9);
    // The step bound is the layer bound for every layer of a stage and every micro-batch (the
    // scenario recomputes the whole forward: once more).
    const Scenario whole = load(o);
    ASSERT_EQ(whole.model.recompute_granularity, RecomputeGranularity::Full);
    const double per_layer = 2 * b.forward.seconds() + b.backward.seconds();
    EXPECT_NEAR(step_lower_bound_s(whole, b) / per_layer,
                whole.micro_batches() * static_cast<double>(whole.model.num_layers) / whole.pp(), 1e-6);
  }
}

TEST(PlanBound, NothingWithoutARingOrForPrefill) {
  EXPECT_EQ(step_lower_bound_s(load({"model.context_parallel_size=1"})), 0.0);
  EXPECT_EQ(step_lower_bound_s(load({"model.context_parallel_size=4", "model.cp_comm_type=a2a"})), 0.0);
  EXPECT_EQ(step_lower_bound_s(load({"model.context_parallel_size=4", "train.mode=prefill"})), 0.0);
  EXPECT_TRUE(std::isnan(metric_bound(load({}), "attention_s", 1.0)));
}

// The planner with a given bound, on one shared layer cache; counts the backend runs per slice.
PlanOutcome plan_with(const Scenario& base, bool prune, double above_tasks, bool exact_bound,
                      std::map<std::string, int>& runs) {
  const BackendRegistry& reg = app::backend_registry();
  auto cache = std::make_shared<LayerCache>();
  auto m = std::make_shared<std::mutex>();
  auto predict = [&reg, cache, m, &runs](const Scenario& s) {
    const std::string key = layer_cache_key(s, "analytic");
    LayerCache local;
    {
      std::lock_guard<std::mutex> lock(*m);
      if (cache->count(key) > 0) local.emplace(key, cache->at(key));
      else ++runs[key];
    }
    const PointMetrics r = predict_scenario(s, "analytic", reg, &local);
    std::lock_guard<std::mutex> lock(*m);
    cache->emplace(key, local.at(key));
    return r;
  };
  PlanOptions o;
  o.top = 4;
  o.threads = 2;
  o.prune = prune;
  o.prune_above_tasks = above_tasks;
  // The exact step (a bound that is reached) prunes as much as any bound can; it is computed apart
  // from the plan's cache so that the runs counted are the plan's own.
  if (exact_bound) {
    o.step_lower_bounds = [&reg](const std::vector<Scenario>& members, const Scenario&) {
      std::vector<double> b;
      for (const Scenario& s : members) b.push_back(predict_scenario(s, "analytic", reg, nullptr).step_s);
      return b;
    };
  } else {
    o.step_lower_bounds = [cost = std::make_shared<const CostModel>(base)](const std::vector<Scenario>& members,
                                                                             const Scenario& layer_run) {
      return step_lower_bounds_s(members, layer_run, *cost);
    };
  }
  return plan(base, o, [](const Scenario& s) { return validate(s); }, predict,
              [](const Scenario& s) { return layer_cache_key(s, "analytic"); });
}

void expect_same_listing(const PlanOutcome& a, const PlanOutcome& b) {
  ASSERT_EQ(a.best.size(), b.best.size());
  for (std::size_t i = 0; i < a.best.size(); ++i) {
    EXPECT_EQ(a.best[i].candidate.label(), b.best[i].candidate.label());
    EXPECT_EQ(a.best[i].result.metrics.step_s, b.best[i].result.metrics.step_s);
    EXPECT_EQ(a.best[i].explanation, b.best[i].explanation);
    EXPECT_EQ(a.best[i].same_numbers_orders, b.best[i].same_numbers_orders);
    EXPECT_EQ(a.best[i].ties_best, b.best[i].ties_best);
  }
  EXPECT_EQ(a.relabeled, b.relabeled);
  EXPECT_EQ(a.enumerated, b.enumerated);
  EXPECT_EQ(a.invalid, b.invalid);
  EXPECT_EQ(a.out_of_memory, b.out_of_memory);
}

TEST(PlanBound, PrunedPlanListsWhatTheUnprunedOneLists) {
  const Scenario base = load({"cluster.nodes=2", "train.global_batch_size=8"});
  // The slices above the median estimated graph are predicted last and may be left out.
  std::vector<double> tasks;
  for (const PlanCandidate& c : enumerate_candidates(base, 16))
    tasks.push_back(slice_graph_tasks(apply_candidate(base, c, 16)));
  std::sort(tasks.begin(), tasks.end());
  const double median = tasks[tasks.size() / 2];
  std::map<std::string, int> all_runs, exact_runs, real_runs;
  const PlanOutcome all = plan_with(base, false, median, true, all_runs);
  const PlanOutcome exact = plan_with(base, true, median, true, exact_runs);
  const PlanOutcome real = plan_with(base, true, median, false, real_runs);
  EXPECT_EQ(all.not_predicted, 0u);
  EXPECT_GT(exact.not_predicted, 0u);   // the test leaves slices out, so it tests something
  EXPECT_GT(real.not_predicted, 0u);    // and so does the bound on kernels and ring exchanges
  EXPECT_LT(exact_runs.size(), all_runs.size());
  expect_same_listing(all, exact);
  expect_same_listing(all, real);
  EXPECT_EQ(all.failed + 0, exact.failed);
}

}  // namespace
}  // namespace hcpsim::planning
