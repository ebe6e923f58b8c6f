// Megatron-Bridge / NeMo recipe keys in a scenario, as a file or as key=value overrides: each is
// mapped onto the field hcpsim prices or named in a warning, never an unknown-key error.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "engine/scenario/loader.h"

namespace hcpsim {
namespace {

const std::string kExample = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml";

bool warns_about(const Diagnostics& d, const std::string& path) {
  for (const Diagnostic& x : d.items())
    if (x.severity == Severity::Warning && x.path == path) return true;
  return false;
}

TEST(BridgeKeys, RecipeOverridesMapOrWarnByName) {
  LoadOptions o;
  o.overrides = {"model.gated_linear_unit=true",       "model.bf16=true",
                 "mixed_precision=bf16_mixed",          "model.tp_comm_overlap=false",
                 "model.sequence_parallel=true",        "model.tensor_model_parallel_size=2",
                 "ddp.use_distributed_optimizer=false", "ddp.overlap_grad_reduce=false",
                 "ddp.overlap_param_gather=false",      "model.cross_entropy_loss_fusion=true",
                 "model.apply_rope_fusion=true",        "model.bias_activation_fusion=true",
                 "model.masked_softmax_fusion=true",    "model.persist_layer_norm=true",
                 "train.micro_batch_size=2",            "train.global_batch_size=32",
                 "model.seq_length=32768",              "comm_overlap.tp_comm_overlap=true"};
  Diagnostics w;
  Scenario s;
  ASSERT_NO_THROW(s = load_scenario_file(kExample, o, &w));
  // Mapped onto what hcpsim prices.
  EXPECT_EQ(s.model.params_dtype, DType::BF16);
  EXPECT_TRUE(s.model.sequence_parallel);
  EXPECT_FALSE(s.ddp.use_distributed_optimizer);
  EXPECT_FALSE(s.ddp.overlap_grad_reduce);
  EXPECT_FALSE(s.ddp.overlap_param_gather);
  EXPECT_EQ(s.train.micro_batch_size, 2);
  EXPECT_EQ(s.train.global_batch_size, 32);
  EXPECT_EQ(s.model.seq_length, 32768);
  // Named in a warning: what hcpsim does not model.
  for (const char* p : {"mixed_precision", "model.cross_entropy_loss_fusion", "model.apply_rope_fusion",
                        "model.bias_activation_fusion", "model.masked_softmax_fusion", "model.persist_layer_norm",
                        "comm_overlap.tp_comm_overlap"})
    EXPECT_TRUE(warns_about(w, p)) << p;
  EXPECT_FALSE(warns_about(w, "model.gated_linear_unit"));   // true is what hcpsim prices
}

TEST(BridgeKeys, PrecisionSwitchesSetParamsDtypeOrAreRefusedByName) {
  LoadOptions fp16;
  fp16.overrides = {"model.fp16=true"};
  EXPECT_EQ(load_scenario_file(kExample, fp16).model.params_dtype, DType::FP16);
  LoadOptions both;
  both.overrides = {"model.fp16=true", "model.bf16=true"};
  try {
    load_scenario_file(kExample, both);
    ADD_FAILURE() << "bf16 and fp16 both true were accepted";
  } catch (const ScenarioError& e) {
    EXPECT_NE(e.diagnostics().items().front().message.find("model.bf16 and model.fp16"), std::string::npos);
  }
  LoadOptions disagree;
  disagree.overrides = {"model.params_dtype=fp16", "model.bf16=true"};
  EXPECT_THROW(load_scenario_file(kExample, disagree), ScenarioError);
  LoadOptions fp32;
  fp32.overrides = {"model.bf16=false", "model.fp16=false"};
  Diagnostics w;
  EXPECT_EQ(load_scenario_file(kExample, fp32, &w).model.params_dtype, DType::BF16);
  EXPECT_TRUE(warns_about(w, "model.bf16"));
  LoadOptions geglu;
  geglu.overrides = {"model.gated_linear_unit=false"};
  Diagnostics g;
  load_scenario_file(kExample, geglu, &g);
  EXPECT_TRUE(warns_about(g, "model.gated_linear_unit"));
}

TEST(BridgeKeys, RecipeKeysInTheFileLoadWithWarnings) {
  std::ifstream f(kExample);
  std::stringstream text;
  text << f.rdbuf();
  std::string yaml = text.str();
  yaml += "mixed_precision: bf16_mixed\ncomm_overlap:\n  tp_comm_overlap: false\n";
  const std::string model = "\nmodel:\n";
  const auto at = yaml.find(model);
  ASSERT_NE(at, std::string::npos);
  yaml.insert(at + model.size(), "  gated_linear_unit: true\n  bf16: true\n  persist_layer_norm: true\n"
                                 "  cross_entropy_loss_fusion: true\n");
  Diagnostics w;
  Scenario s;
  ASSERT_NO_THROW(s = load_scenario_string(yaml, {}, "<string>", &w));
  EXPECT_EQ(s.model.params_dtype, DType::BF16);
  for (const char* p : {"mixed_precision", "comm_overlap", "model.persist_layer_norm", "model.cross_entropy_loss_fusion"})
    EXPECT_TRUE(warns_about(w, p)) << p;
}

}  // namespace
}  // namespace hcpsim
