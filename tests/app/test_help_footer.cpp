// The --help footer formatter (engine/app/help_footer.h): the layout run_help_examples.py parses.
#include <gtest/gtest.h>

#include <string>

#include "engine/app/help_footer.h"

namespace hcpsim::app {
namespace {

TEST(HelpFooter, ProseExamplesAndContinuationLines) {
  const std::string text = format_help_footer(
      {.before = "What the command does.",
       .examples = {{{"hcpsim layout a.yaml"}},
                    {{"hcpsim layout a.yaml cluster.nodes=2", "model.context_parallel_size=8"}},
                    {{"hcpsim simulate a.yaml --trace t.json"}, "open in ui.perfetto.dev"}},
       .after = "Exit status: 0 ok."});
  EXPECT_EQ(text,
            "What the command does.\n\n"
            "Examples:\n"
            "  hcpsim layout a.yaml\n"
            "  hcpsim layout a.yaml cluster.nodes=2 \\\n"
            "      model.context_parallel_size=8\n"
            "  hcpsim simulate a.yaml --trace t.json   # open in ui.perfetto.dev\n\n"
            "Exit status: 0 ok.");
}

TEST(HelpFooter, WithoutProseTheFooterStartsAndEndsWithTheExamples) {
  const std::string text = format_help_footer({.before = "", .examples = {{{"hcpsim graph a.yaml"}}}, .after = ""});
  EXPECT_EQ(text, "Examples:\n  hcpsim graph a.yaml");
}

}  // namespace
}  // namespace hcpsim::app
