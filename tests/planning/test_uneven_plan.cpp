// Megatron's uneven pipeline split in the planner and on the ways in and out: the candidates for a
// pipeline size that does not divide num_layers, the memory of each stage, and the split carried by
// `import megatron`, the emitted Megatron arguments and the Bridge overrides.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "engine/memory/memory_model.h"
#include "engine/planning/megatron_import.h"
#include "engine/planning/memory_fit.h"
#include "engine/planning/plan_emit.h"
#include "engine/planning/planner.h"
#include "engine/scenario/loader.h"
#include "engine/scenario/pipeline_split.h"
#include "engine/validate/validate.h"
#include "tests/support/llama3_models.h"

namespace hcpsim::planning {
namespace {

// Llama 3 405B's shape with its 126 layers, 8K tokens, on `nodes` DGX H100-like nodes.
Scenario llama405b(int nodes) {
  Scenario s = test::scenario_of_shape({126, 16384, 53248, 128, 8, 128});
  s.name = "uneven-plan";
  s.model.seq_length = 8192;
  s.model.tensor_model_parallel_size = 8;
  s.model.sequence_parallel = true;
  s.train.global_batch_size = 64;
  s.cluster.nodes = nodes;
  s.cluster.gpus_per_node = 8;
  s.cluster.nics_per_node = 8;
  s.cluster.gpu.memory_bytes = 80e9;
  s.simulation.backend = "analytic";
  return s;
}

TEST(UnevenPlan, PipelineSizesThatDoNotDivideTheLayersGetMegatronsUnevenSplits) {
  const Scenario base = llama405b(2);
  PlanSearch search;
  search.max_vpp = 2;
  const std::vector<PlanCandidate> all = enumerate_candidates(base, 16, search);
  int uneven_pp4 = 0;
  bool even_pp2 = false;
  for (const PlanCandidate& c : all) {
    const Scenario s = apply_candidate(base, c, 16);
    ASSERT_FALSE(pipeline_split_problem(s.model)) << c.label() << ": " << pipeline_split_problem(s.model)->message;
    const std::vector<int> st = stage_layer_counts(s.model);
    EXPECT_EQ(std::accumulate(st.begin(), st.end(), 0), 126) << c.label();
    if (c.pp == 2) even_pp2 = even_pp2 || !uneven_pipeline_split(s.model);   // 126 / 2: even
    if (c.pp == 4) {
      // 126 / 4: no even split. The busiest stage holds ceil(126 / 4) = 32 layers.
      ASSERT_TRUE(uneven_pipeline_split(s.model)) << c.label();
      EXPECT_EQ(*std::max_element(st.begin(), st.end()), 32) << c.label();
      ++uneven_pp4;
    }
  }
  EXPECT_TRUE(even_pp2);
  EXPECT_GT(uneven_pp4, 0);
  // The splits offered for pp 4 (one layout): 31/32/32/31 (vpp 1), 32/32/32/30 with vpp 2, and the
  // embedding and loss counted as layers with vpp 2 ([15,16] ... [16,15]); 31/32/32/31 through the
  // embedding and loss (the same chunks as the first one) is listed once.
  std::vector<std::string> labels;
  for (const PlanCandidate& c : all)
    if (c.pp == 4 && c.tp == 4 && c.dp == 1 && c.mbs == 1 && c.recompute == Recompute::None && c.distributed_optimizer &&
        c.order == "tp-cp-ep-dp-pp")
      labels.push_back(c.label().substr(c.label().find("pp=4")));
  EXPECT_EQ(labels.size(), 3u);
  EXPECT_NE(std::find(labels.begin(), labels.end(), "pp=4 first=31 last=31"), labels.end());
  EXPECT_NE(std::find(labels.begin(), labels.end(), "pp=4 vpp=2 first=32 last=30"), labels.end());
  EXPECT_NE(std::find(labels.begin(), labels.end(), "pp=4 vpp=2 embedding-in-split loss-in-split"), labels.end());
}

TEST(UnevenPlan, MemoryIsTheNeediestStagesWithItsOwnLayers) {
  // 10 layers on 4 stages as 1/3/3/3, 1F1B with 4 micro-batches: stage 0 keeps 4 micro-batches of 1
  // layer, stage 1 three of 3 layers: stage 1 needs the most.
  Scenario s = test::scenario_of_shape(test::kLlama3_8B);
  s.model.num_layers = 10;
  s.model.vocab_size = 1024;   // small embedding and output layer: the layers decide
  s.model.seq_length = 8192;
  s.model.pipeline_model_parallel_size = 4;
  s.model.decoder_first_pipeline_num_layers = 1;
  s.train.global_batch_size = 8;
  s.cluster.nodes = 1;
  s.cluster.gpus_per_node = 4;
  s.cluster.gpu.memory_bytes = 80e9;
  const MemoryEstimate m = estimate_memory(s);
  EXPECT_EQ(m.pipeline_stage, 1);
  EXPECT_EQ(m.stage_layers, 3);
  EXPECT_NEAR(m.activations_bytes, 9 * m.activation_bytes_per_layer, 1e-6 * m.activations_bytes);
  EXPECT_EQ(m.logits_bytes, 0.0);   // the output layer is on the last stage
  // 7/1/1/1: the first stage's 4 micro-batches of 7 layers.
  s.model.decoder_first_pipeline_num_layers = 7;
  const MemoryEstimate f = estimate_memory(s);
  EXPECT_EQ(f.pipeline_stage, 0);
  EXPECT_NEAR(f.activations_bytes, 28 * f.activation_bytes_per_layer, 1e-6 * f.activations_bytes);
  // Only the last stage with layers to spare: it holds the output layer and the logits too.
  s.model.decoder_first_pipeline_num_layers.reset();
  s.model.decoder_last_pipeline_num_layers = 7;
  s.model.pipeline_model_parallel_size = 2;
  s.model.num_layers = 8;
  s.cluster.gpus_per_node = 2;
  const MemoryEstimate l = estimate_memory(s);
  EXPECT_EQ(l.pipeline_stage, 1);
  EXPECT_GT(l.logits_bytes, 0.0);
}

TEST(UnevenPlan, MegatronArgumentsAndBridgeOverridesCarryTheSplit) {
  Scenario s = llama405b(128);
  s.model.pipeline_model_parallel_size = 16;
  s.model.decoder_first_pipeline_num_layers = 7;
  s.model.decoder_last_pipeline_num_layers = 7;
  const std::vector<std::string> args = megatron_arguments(s);
  const auto at = std::find(args.begin(), args.end(), "--decoder-first-pipeline-num-layers");
  ASSERT_NE(at, args.end());
  EXPECT_EQ(*(at + 1), "7");
  // Re-imported: the same split, and the emitted arguments again.
  const MegatronImport im = import_megatron(args, {"dgx-h100", 128, 0, "imported"});
  const Scenario b = load_scenario_string(im.yaml);
  EXPECT_EQ(b.model.decoder_first_pipeline_num_layers, 7);
  EXPECT_EQ(b.model.decoder_last_pipeline_num_layers, 7);
  EXPECT_EQ(megatron_arguments(b), args);
  EXPECT_TRUE(changed_overrides(s, b).empty()) << changed_overrides(s, b).front();
  // Interleaved with an uneven split: Megatron-LM takes the virtual size as stages per rank.
  Scenario c = s;
  c.model.num_layers = 124;
  c.model.virtual_pipeline_model_parallel_size = 2;
  c.model.decoder_first_pipeline_num_layers = 6;
  c.model.decoder_last_pipeline_num_layers = 6;
  ASSERT_FALSE(pipeline_split_problem(c.model));
  const std::vector<std::string> vargs = megatron_arguments(c);
  EXPECT_NE(std::find(vargs.begin(), vargs.end(), "--num-virtual-stages-per-pipeline-rank"), vargs.end());
  EXPECT_EQ(std::find(vargs.begin(), vargs.end(), "--num-layers-per-virtual-pipeline-stage"), vargs.end());
  std::vector<std::string> bad = vargs;
  bad.insert(bad.end(), {"--num-layers-per-virtual-pipeline-stage", "4"});
  EXPECT_THROW(import_megatron(bad, {"dgx-h100", 128, 0, "i"}), std::invalid_argument);
  // The emitted overrides set the split (and unset it again); Bridge spells the stage sizes its way.
  const Scenario even = llama405b(128);
  const std::vector<std::string> o = changed_overrides(even, s);
  EXPECT_NE(std::find(o.begin(), o.end(), "model.decoder_first_pipeline_num_layers=7"), o.end());
  const std::vector<std::string> back = changed_overrides(s, even);
  EXPECT_NE(std::find(back.begin(), back.end(), "model.decoder_last_pipeline_num_layers=null"), back.end());
  const std::vector<std::string> br = bridge_overrides(o);
  EXPECT_NE(std::find(br.begin(), br.end(), "model.num_layers_in_first_pipeline_stage=7"), br.end());
  EXPECT_NE(std::find(br.begin(), br.end(), "model.num_layers_in_last_pipeline_stage=7"), br.end());
}

}  // namespace
}  // namespace hcpsim::planning
