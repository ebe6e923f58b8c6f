// Form edits rewrite one line of the YAML text: comments, blank lines and key order stay.
#include <gtest/gtest.h>

#include "gui/models/yaml_text_edit.h"

using hcpsim::gui::set_yaml_value;

namespace {

const QString kText =
    "# a scenario\n"
    "name: demo   # the name\n"
    "model:\n"
    "  num_layers: 32\n"
    "  # parallel sizes\n"
    "  pipeline_model_parallel_size: 1    # one stage\n"
    "  hierarchical_context_parallel_sizes:\n"
    "    - 2\n"
    "    - 4\n"
    "  seq_length: 65536\n"
    "\n"
    "simulation:\n"
    "  layers: 1\n";

TEST(YamlTextEdit, ReplacesTheValueAndKeepsItsComment) {
  QString t = kText;
  ASSERT_TRUE(set_yaml_value(t, "model.pipeline_model_parallel_size", "2"));
  EXPECT_TRUE(t.contains("  pipeline_model_parallel_size: 2  # one stage\n")) << t.toStdString();
  EXPECT_TRUE(t.startsWith("# a scenario\nname: demo   # the name\n"));
  EXPECT_TRUE(t.contains("  # parallel sizes\n"));
  EXPECT_EQ(t.count('\n'), kText.count('\n'));
}

TEST(YamlTextEdit, KeyOfTheSameNameInAnotherSectionIsNotTouched) {
  QString t = kText;
  ASSERT_TRUE(set_yaml_value(t, "simulation.layers", "2"));
  EXPECT_TRUE(t.contains("  num_layers: 32\n"));
  EXPECT_TRUE(t.endsWith("simulation:\n  layers: 2\n")) << t.toStdString();
}

TEST(YamlTextEdit, BlockListIsReplacedByTheNewValue) {
  QString t = kText;
  ASSERT_TRUE(set_yaml_value(t, "model.hierarchical_context_parallel_sizes", "[4, 2]"));
  EXPECT_TRUE(t.contains("  hierarchical_context_parallel_sizes: [4, 2]\n  seq_length: 65536\n")) << t.toStdString();
  EXPECT_FALSE(t.contains("- 2"));
}

TEST(YamlTextEdit, MissingKeyAndSectionAreAdded) {
  QString t = kText;
  ASSERT_TRUE(set_yaml_value(t, "model.context_parallel_size", "4"));
  EXPECT_TRUE(t.contains("  seq_length: 65536\n  context_parallel_size: 4\n\nsimulation:")) << t.toStdString();
  ASSERT_TRUE(set_yaml_value(t, "train.global_batch_size", "16"));
  EXPECT_TRUE(t.endsWith("  layers: 1\ntrain:\n  global_batch_size: 16\n")) << t.toStdString();
  ASSERT_TRUE(set_yaml_value(t, "name", "other"));
  EXPECT_TRUE(t.contains("name: other  # the name\n"));
}

TEST(YamlTextEdit, InlineSectionIsRefusedWithTheLine) {
  QString t = "name: x\nmodel: {num_layers: 2}\n";
  QString error;
  EXPECT_FALSE(set_yaml_value(t, "model.num_layers", "4", &error));
  EXPECT_TRUE(error.contains("model")) << error.toStdString();
  EXPECT_TRUE(error.contains("line 2")) << error.toStdString();
  EXPECT_EQ(t, "name: x\nmodel: {num_layers: 2}\n");
}

}  // namespace
