// The whole-step timeline's model: the step graph's events through the application layer, every
// stage, micro-batch, P2P transfer, DP collective and the optimizer; replicas folded away.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "engine/app/step_trace.h"
#include "engine/layout/rank_layout.h"
#include "gui/models/timeline_trace.h"

using namespace hcpsim;

namespace {

// 8 GPUs: tp 2 x cp 2 x pp 2 (dp 1) ... and a dp 2 variant; 4 layers, 4 micro-batches.
Scenario step_scenario(int tp, int cp, int pp) {
  Scenario s;
  s.name = "gui-step";
  s.model.num_layers = 4;
  s.model.hidden_size = 2048;
  s.model.ffn_hidden_size = 8192;
  s.model.num_attention_heads = 16;
  s.model.num_query_groups = 8;
  s.model.kv_channels = 128;
  s.model.seq_length = 8192;
  s.model.tensor_model_parallel_size = tp;
  s.model.sequence_parallel = tp > 1;
  s.model.context_parallel_size = cp;
  s.model.pipeline_model_parallel_size = pp;
  s.train.global_batch_size = 4 * (8 / (tp * cp * pp));
  s.cluster.gpus_per_node = 8;
  s.simulation.backend = "analytic";
  return s;
}

double end_of(const Trace& t) {
  double e = 0;
  for (const auto& ev : t.events) e = std::max(e, ev.end_s);
  return e;
}

TEST(StepTrace, HoldsStagesTransfersCollectivesAndTheOptimizer) {
  const Scenario s = step_scenario(1, 2, 2);   // dp 2
  const Trace t = app::predict_step_trace(s, "analytic");
  std::set<std::string> names;
  std::set<int> ranks;
  for (const auto& e : t.events) {
    names.insert(e.name.substr(e.name.rfind('.') + 1));   // "L3.bwd.grad_reduce_scatter": the label
    ranks.insert(e.rank);
  }
  for (const char* n : {"pp_send_activation", "pp_send_grad", "grad_reduce_scatter", "optimizer", "embedding"})
    EXPECT_TRUE(names.count(n)) << n;
  // Folded: the first DP replica's ranks of both stages (cp 2 x pp 2), none of the other replica.
  const RankLayout layout = RankLayout::from_scenario(s);
  EXPECT_EQ(ranks.size(), 4u);
  for (int r : ranks) EXPECT_EQ(layout.coord(r).dp, 0) << r;
  std::set<int> stages;
  for (int r : ranks) stages.insert(layout.coord(r).pp);
  EXPECT_EQ(stages.size(), 2u);
  // The other replica runs at the same times: the unfolded step ends at the same time.
  const Trace all = app::predict_step_trace(s, "analytic", {.fold_replicas = false});
  std::set<int> all_ranks;
  for (const auto& e : all.events) all_ranks.insert(e.rank);
  EXPECT_EQ(all_ranks.size(), 8u);
  EXPECT_DOUBLE_EQ(end_of(all), end_of(t));
  // The timeline adapter takes it as any trace: one lane set per kept rank.
  EXPECT_FALSE(gui::from_engine_trace(t).events.empty());
}

TEST(StepTrace, RefusesPrefillAndAboveTheSizeLimit) {
  Scenario s = step_scenario(2, 2, 2);
  EXPECT_THROW(app::predict_step_trace(s, "analytic", {.fold_replicas = true, .max_tasks = 10}), std::invalid_argument);
  s.train.mode = TrainMode::Prefill;
  EXPECT_THROW(app::predict_step_trace(s, "analytic"), std::invalid_argument);
}

}  // namespace
