// The timeline opens a PyTorch profiler trace (its first profiled step) like an hcpsim trace.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "engine/measured/measured_input.h"
#include "gui/models/colors.h"
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

// Memory-bound and optimizer kernels (and any without a task kind) are drawn too, with their own
// kind and colour, as many as the profiled step holds; they stay out of the engine trace.
TEST(TimelineProfilerTrace, DrawsMemoryBoundAndOptimizerKernels) {
  const std::string path = std::string(HCPSIM_SOURCE_DIR) + "/tests/data/measured/hta/nccl_allreduce_2rank.json.gz";
  const TimelineTrace t = load_chrome_trace(path);
  std::map<MeasuredKind, std::size_t> drawn;
  std::size_t measured_only = 0;
  for (const auto& e : t.events) {
    ++drawn[timeline_kind(e)];
    if (e.measured_only) ++measured_only;
  }
  // What the step holds, counted from the reader itself.
  const MeasuredRun run = read_measured_run({path}, KernelClassifier());
  std::map<MeasuredKind, std::size_t> in_step;
  for (const auto& r : run.ranks)
    for (const auto& k : r.kernels)
      if (r.steps == 0 || k.step == 0) ++in_step[k.kind];
  ASSERT_GT(in_step[MeasuredKind::MemoryBound], 0u);
  ASSERT_GT(in_step[MeasuredKind::Optimizer], 0u);
  EXPECT_EQ(drawn, in_step);
  EXPECT_EQ(t.events.size(), t.trace.events.size() + measured_only);   // the engine trace keeps task kinds only
  for (const auto& e : t.trace.events) EXPECT_LT(static_cast<int>(e.kind), kTaskKindCount);

  // Their colours differ from each other and from every task kind's.
  std::set<unsigned> colours;
  for (int k = 0; k < kTaskKindCount; ++k) colours.insert(task_kind_color(static_cast<TaskKind>(k)).rgb());
  for (auto k : {MeasuredKind::MemoryBound, MeasuredKind::Optimizer, MeasuredKind::OtherCommunication, MeasuredKind::Other})
    EXPECT_TRUE(colours.insert(kind_color(k).rgb()).second) << to_string(k);
  EXPECT_EQ(kind_color(MeasuredKind::Gemm), task_kind_color(TaskKind::Gemm));
}

}  // namespace
}  // namespace hcpsim::gui
