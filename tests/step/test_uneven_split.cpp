// The step with Megatron's uneven pipeline split: the replayed 1F1B against its closed form with
// stages of different sizes (the slowest stage sets the pace), and compose_step giving each stage
// and chunk its own layers.
#include <gtest/gtest.h>

#include "engine/step/pipeline_schedule.h"
#include "engine/step/step_model.h"
#include "tests/support/llama3_models.h"

namespace hcpsim::step {
namespace {

// 1F1B, free transfers, stage k holds layers[k] layers of forward a and backward 2a seconds.
PipelineInputs stages_of(const std::vector<int>& layers, int m, double a) {
  PipelineInputs in;
  in.stages = static_cast<int>(layers.size());
  in.micro_batches = m;
  for (int n : layers) {
    in.forward_s.push_back({n * a});
    in.backward_s.push_back({2 * n * a});
  }
  return in;
}

TEST(UnevenSplit, OneF1BWithTheLastStageSlowestMatchesTheClosedForm) {
  // The last stage busy from its first forward to its last backward: the makespan is the others'
  // forwards of micro-batch 0, m times the last stage's forward + backward, and the others'
  // backwards of micro-batch m - 1:  T = sum_{k<p-1} (f_k + b_k) + m (f_{p-1} + b_{p-1}).
  // The bubble is 1 - m (f_{p-1} + b_{p-1}) / T.
  const double a = 1e-3;
  for (const std::vector<int>& layers : {std::vector<int>{1, 2}, {3, 4, 4, 5}, {7, 8, 8, 8, 8, 8, 8, 9}})
    for (int m : {1, 4, 16}) {
      const PipelineTimes t = simulate_pipeline(stages_of(layers, m, a));
      double others = 0;
      for (std::size_t k = 0; k + 1 < layers.size(); ++k) others += 3 * layers[k] * a;
      const double last = 3 * layers.back() * a;
      EXPECT_NEAR(t.makespan_s, others + m * last, 1e-12) << "stages " << layers.size() << " m=" << m;
      EXPECT_NEAR(t.bubble_fraction, 1 - m * last / (others + m * last), 1e-12);
      EXPECT_NEAR(t.stage_busy_s.back(), m * last, 1e-12);
    }
}

TEST(UnevenSplit, TheSlowestStageSetsThePaceNotTheAverage) {
  // Same 32 layers on 4 stages: even (8 each) against 7/9/8/8. The busiest stage holds 9 layers:
  // every steady-state 1F1B pair takes 9 layers' time, so the uneven pipeline is slower although the
  // layers' total is the same.
  const double a = 1e-3;
  const int m = 32;
  const PipelineTimes even = simulate_pipeline(stages_of({8, 8, 8, 8}, m, a));
  const PipelineTimes uneven = simulate_pipeline(stages_of({7, 9, 8, 8}, m, a));
  EXPECT_NEAR(even.makespan_s, (m + 3) * 24 * a, 1e-12);
  EXPECT_GT(uneven.makespan_s, even.makespan_s);
  // At least the first stage's forward of micro-batch 0, the 9-layer stage's m steps and the first
  // stage's backward of micro-batch m - 1.
  EXPECT_GE(uneven.makespan_s, 7 * a + m * 27 * a + 14 * a - 1e-12);
  EXPECT_NEAR(uneven.stage_busy_s[1], m * 27 * a, 1e-12);
}

Scenario two_stages(int first, int last) {
  Scenario s = test::scenario_of_shape(test::kLlama3_8B);
  s.name = "uneven";
  s.model.num_layers = 8;
  s.model.seq_length = 8192;
  s.model.tensor_model_parallel_size = 4;
  s.model.pipeline_model_parallel_size = 2;
  s.model.sequence_parallel = true;
  if (first + last > 0) {
    s.model.decoder_first_pipeline_num_layers = first;
    s.model.decoder_last_pipeline_num_layers = last;
  }
  s.model.elementwise_ops = ElementwiseOps::None;
  s.train.global_batch_size = 8;
  s.cluster.nodes = 1;
  s.cluster.gpus_per_node = 8;
  s.cluster.nics_per_node = 8;
  s.cluster.efficiency.terms = ModelTerms::all_off();
  s.simulation.backend = "analytic";
  return s;
}

TEST(UnevenSplit, ComposeStepGivesEachStageItsLayers) {
  LayerTimes lt;
  lt.layer_forward_s = 1e-3;
  lt.layer_backward_s = 2e-3;
  lt.attention_forward_s = 0.4e-3;
  // 8 layers on 2 stages, m = 8: even 4/4 against 3/5. The last stage (with the output layer) is the
  // slowest in both; moving one layer to it adds one layer's forward + backward to each of its m
  // steps and takes one from the first stage's micro-batch 0 forward and micro-batch m - 1 backward:
  // the pipeline grows by exactly (m - 1)(f + b).
  const StepReport even = compose_step(two_stages(0, 0), lt);
  const StepReport uneven = compose_step(two_stages(3, 5), lt);
  ASSERT_EQ(even.micro_batches, 8);
  EXPECT_NEAR(uneven.stage_forward_s - even.stage_forward_s, 1e-3, 1e-12);
  EXPECT_NEAR(uneven.stage_backward_s - even.stage_backward_s, 2e-3, 1e-12);
  EXPECT_NEAR(uneven.pipeline_s - even.pipeline_s, (8 - 1) * 3e-3, 1e-9);
  // 5/3 puts the extra layer on the first stage instead: the last stage's 3 layers + output layer
  // no longer set the pace alone.
  const StepReport front = compose_step(two_stages(5, 3), lt);
  EXPECT_LT(front.pipeline_s, uneven.pipeline_s);
  // An invalid split is refused by name.
  Scenario bad = two_stages(3, 4);
  try {
    compose_step(bad, lt);
    ADD_FAILURE() << "3 + 4 != 8 layers must be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("model.decoder_first_pipeline_num_layers"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hcpsim::step
