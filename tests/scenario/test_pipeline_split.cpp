// Megatron's uneven pipeline split: the layers of every stage and chunk (transformer_block.py's
// get_num_layers_to_build), its checks with the field they name, and the scenario fields loaded and
// validated with their line.
#include <stdexcept>

#include "engine/scenario/pipeline_split.h"
#include "engine/scenario/scenario.h"
#include "scenario_fixture.h"

namespace hcpsim {
namespace {

ModelConfig model(int L, int pp, int vpp = 1) {
  ModelConfig m;
  m.num_layers = L;
  m.pipeline_model_parallel_size = pp;
  m.virtual_pipeline_model_parallel_size = vpp;
  return m;
}

using Split = std::vector<std::vector<int>>;

TEST(PipelineSplit, EvenSplitEveryChunkHoldsLOverPpVpp) {
  const ModelConfig m = model(32, 4, 2);
  EXPECT_FALSE(uneven_pipeline_split(m));
  EXPECT_EQ(pipeline_split(m), Split(4, std::vector<int>(2, 4)));
  EXPECT_EQ(pipeline_split_label(m), "8x4");
}

TEST(PipelineSplit, FirstAndLastStagesTheirOwnTheMiddleShareTheRest) {
  // Llama 3 405B: 126 layers on 16 stages, 7 on the first and the last, 112 / 14 = 8 on the middle.
  ModelConfig m = model(126, 16);
  m.decoder_first_pipeline_num_layers = 7;
  m.decoder_last_pipeline_num_layers = 7;
  EXPECT_TRUE(uneven_pipeline_split(m));
  const std::vector<int> st = stage_layer_counts(m);
  ASSERT_EQ(st.size(), 16u);
  EXPECT_EQ(st.front(), 7);
  EXPECT_EQ(st.back(), 7);
  for (std::size_t i = 1; i + 1 < st.size(); ++i) EXPECT_EQ(st[i], 8) << i;
  EXPECT_EQ(pipeline_split_label(m), "7/8x14/7");
  // Only the first: the other 3 stages share 10 - 1 = 9.
  ModelConfig f = model(10, 4);
  f.decoder_first_pipeline_num_layers = 1;
  EXPECT_EQ(stage_layer_counts(f), (std::vector<int>{1, 3, 3, 3}));
  // With vpp each stage's layers are divided over its chunks.
  ModelConfig v = model(24, 3, 2);
  v.decoder_first_pipeline_num_layers = 4;
  v.decoder_last_pipeline_num_layers = 4;
  EXPECT_EQ(pipeline_split(v), (Split{{2, 2}, {8, 8}, {2, 2}}));
}

TEST(PipelineSplit, EmbeddingAndLossCountedAsLayersOfTheFirstAndLastChunk) {
  // (126 + 2) / 16 = 8 per stage, 4 per chunk; the first chunk builds 3 (the embedding takes a
  // layer's place), the last chunk 3 (the loss).
  ModelConfig m = model(126, 16, 2);
  m.account_for_embedding_in_pipeline_split = true;
  m.account_for_loss_in_pipeline_split = true;
  const Split s = pipeline_split(m);
  EXPECT_EQ(s.front(), (std::vector<int>{3, 4}));
  EXPECT_EQ(s.back(), (std::vector<int>{4, 3}));
  EXPECT_EQ(s[7], (std::vector<int>{4, 4}));
  int total = 0;
  for (const auto& c : s)
    for (int n : c) total += n;
  EXPECT_EQ(total, 126);
  ModelConfig loss = model(31, 4);
  loss.account_for_loss_in_pipeline_split = true;
  EXPECT_EQ(stage_layer_counts(loss), (std::vector<int>{8, 8, 8, 7}));
}

void expect_problem(const ModelConfig& m, const std::string& field, const std::string& text) {
  const auto pr = pipeline_split_problem(m);
  ASSERT_TRUE(pr.has_value()) << text;
  EXPECT_EQ(pr->field, field);
  EXPECT_NE(pr->message.find(text), std::string::npos) << pr->message;
  EXPECT_FALSE(pr->hints.empty());
  EXPECT_THROW(pipeline_split(m), std::invalid_argument);
}

TEST(PipelineSplit, MegatronsChecksNameTheFieldAndWhatWouldBeValid) {
  ModelConfig m = model(126, 16);
  m.decoder_first_pipeline_num_layers = 6;
  m.decoder_last_pipeline_num_layers = 7;   // 113 left for 14 stages
  expect_problem(m, "model.decoder_first_pipeline_num_layers",
                 "number of layers at middle stage: 113 must be divisible by the middle pipeline model parallel size 14");
  EXPECT_NE(pipeline_split_problem(m)->hints[0].find("decoder_first_pipeline_num_layers: 7 and decoder_last_pipeline_num_layers: 7"),
            std::string::npos)
      << pipeline_split_problem(m)->hints[0];
  ModelConfig v = model(24, 3, 2);
  v.decoder_last_pipeline_num_layers = 3;
  expect_problem(v, "model.decoder_last_pipeline_num_layers",
                 "number of layers at last stage: 3 must be divisible by virtual pipeline parallel degree 2");
  ModelConfig both = model(126, 16);
  both.decoder_first_pipeline_num_layers = 7;
  both.account_for_loss_in_pipeline_split = true;
  expect_problem(both, "model.account_for_loss_in_pipeline_split", "cannot be set together");
  ModelConfig one = model(8, 1);
  one.decoder_first_pipeline_num_layers = 3;
  expect_problem(one, "model.decoder_first_pipeline_num_layers", "needs pipeline_model_parallel_size >= 2");
  ModelConfig two = model(9, 2);
  two.decoder_first_pipeline_num_layers = 4;
  two.decoder_last_pipeline_num_layers = 4;
  expect_problem(two, "model.decoder_first_pipeline_num_layers", "8 != num_layers (9)");
  ModelConfig over = model(10, 4);
  over.decoder_first_pipeline_num_layers = 9;
  expect_problem(over, "model.decoder_first_pipeline_num_layers", "need at least one layer each");
  ModelConfig counted = model(126, 16);
  counted.account_for_loss_in_pipeline_split = true;   // 127 is prime
  expect_problem(counted, "model.account_for_loss_in_pipeline_split", "must be divisible by pipeline_model_parallel_size 16");
}

// kBase with pp and the split fields under model: (lines 9-12).
std::string with_split(const std::string& fields) {
  std::string y = test::kBase;
  y.insert(y.find("cluster:"), "  pipeline_model_parallel_size: 4\n" + fields);
  return y;
}

TEST(PipelineSplit, ScenarioFieldsLoadAndValidateWithTheirLine) {
  const Scenario ok = test::load(with_split("  decoder_first_pipeline_num_layers: 5\n  decoder_last_pipeline_num_layers: 9\n"),
                                 {"model.context_parallel_size=2"});
  EXPECT_EQ(ok.model.decoder_first_pipeline_num_layers, 5);
  EXPECT_EQ(ok.model.decoder_last_pipeline_num_layers, 9);
  EXPECT_FALSE(validate(ok).has_errors()) << format_diagnostics(validate(ok), "t.yaml");
  EXPECT_EQ(stage_layer_counts(ok.model), (std::vector<int>{5, 9, 9, 9}));
  // 32 - 6 = 26 over 3 middle stages: an error on the field's own line (10), with a valid split.
  const Diagnostics d = validate(test::load(with_split("  decoder_first_pipeline_num_layers: 6\n"), {"model.context_parallel_size=2"}));
  const Diagnostic* e = test::find(d, "must be divisible by the middle pipeline model parallel size 3");
  ASSERT_NE(e, nullptr) << format_diagnostics(d, "t.yaml");
  EXPECT_EQ(e->path, "model.decoder_first_pipeline_num_layers");
  EXPECT_EQ(e->line, 10);
  ASSERT_FALSE(e->hints.empty());
  EXPECT_NE(e->hints[0].find("decoder_first_pipeline_num_layers: 8"), std::string::npos) << e->hints[0];
  // Bridge's None is unset; 0 is refused by the reader (layers >= 1).
  const Scenario none = test::load(with_split("  decoder_first_pipeline_num_layers: null\n"), {"model.context_parallel_size=2"});
  EXPECT_FALSE(none.model.decoder_first_pipeline_num_layers.has_value());
  const Diagnostics zero = test::load_errors(with_split("  decoder_last_pipeline_num_layers: 0\n"));
  bool named = false;
  for (const Diagnostic& z : zero.items()) named = named || (z.path == "model.decoder_last_pipeline_num_layers" && z.line == 10);
  EXPECT_TRUE(named) << format_diagnostics(zero, "t.yaml");
  // An even-split error now also points at the uneven split.
  const Diagnostics odd = validate(test::load(test::kBase, {"model.num_layers=30", "model.pipeline_model_parallel_size=4",
                                                            "model.context_parallel_size=2"}));
  const Diagnostic* o = test::find(odd, "must be divisible by pipeline_model_parallel_size x");
  ASSERT_NE(o, nullptr);
  EXPECT_NE(o->hints.back().find("decoder_first_pipeline_num_layers"), std::string::npos);
}

}  // namespace
}  // namespace hcpsim
