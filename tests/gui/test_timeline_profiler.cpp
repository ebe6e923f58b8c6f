// The timeline opens a PyTorch profiler trace (its first profiled step) like an hcpsim trace.
#include <gtest/gtest.h>

#include <set>

#include "gui/models/timeline_trace.h"

namespace hcpsim::gui {
namespace {

TEST(TimelineProfilerTrace, OpensTheFirstProfiledStepOfAPublicTrace) {
  const std::string path = std::string(HCPSIM_SOURCE_DIR) + "/tests/data/measured/hta/nccl_allreduce_2rank.json.gz";
  const TimelineTrace t = load_chrome_trace(path);
  EXPECT_EQ(t.source, path);
  ASSERT_FALSE(t.events.empty());
  EXPECT_EQ(t.trace.backend, "measured");
  std::set<std::string> streams;
  for (const auto& l : t.lanes) {
    EXPECT_EQ(l.rank, 0);
    streams.insert(l.stream);
  }
  EXPECT_TRUE(streams.count("main"));      // CUDA stream 7
  EXPECT_TRUE(streams.count("nccl:tp"));   // stream 40: the all-reduces
  EXPECT_NEAR(t.begin_s, 0.0, 1e-12);      // the step starts at 0
  bool all_reduce = false;
  for (const auto& e : t.events) all_reduce = all_reduce || e.kind == TaskKind::AllReduce;
  EXPECT_TRUE(all_reduce);
}

}  // namespace
}  // namespace hcpsim::gui
