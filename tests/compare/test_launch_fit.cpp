// Launch overheads from host launch and GPU start times: queued gaps and idle-stream latencies.
#include <gtest/gtest.h>

#include "engine/measured/launch_fit.h"
#include "engine/measured/measured_input.h"

namespace hcpsim {
namespace {

MeasuredKernel kernel(double launch_us, double start_us, double dur_us, int stream, MeasuredKind kind) {
  MeasuredKernel k;
  k.launch_s = launch_us < 0 ? -1 : launch_us * 1e-6;
  k.start_s = start_us * 1e-6;
  k.end_s = (start_us + dur_us) * 1e-6;
  k.stream = stream;
  k.kind = kind;
  return k;
}

TEST(LaunchFit, QueuedGapsAndIdleLatenciesByComputeAndNccl) {
  MeasuredRun run;
  MeasuredRank r;
  // Stream 7: an idle-stream launch (latency 5 us), then three kernels queued before their
  // predecessor ended (gaps 2, 3, 4 us).
  r.kernels.push_back(kernel(0, 5, 100, 7, MeasuredKind::Gemm));
  r.kernels.push_back(kernel(10, 107, 50, 7, MeasuredKind::AttentionForward));
  r.kernels.push_back(kernel(20, 160, 50, 7, MeasuredKind::MemoryBound));
  r.kernels.push_back(kernel(30, 214, 50, 7, MeasuredKind::Gemm));
  // Stream 20: NCCL kernels launched onto an idle stream (latencies 9 and 11 us), and one whose
  // launch was not recorded (no sample).
  r.kernels.push_back(kernel(0, 9, 20, 20, MeasuredKind::AllGather));
  r.kernels.push_back(kernel(100, 111, 20, 20, MeasuredKind::ReduceScatter));
  r.kernels.push_back(kernel(-1, 300, 20, 20, MeasuredKind::AllGather));
  run.ranks.push_back(r);

  const LaunchOverheads o = fit_launch_overheads(run);
  EXPECT_EQ(o.compute_gap.samples, 3u);
  EXPECT_NEAR(o.compute_gap.median_s, 3e-6, 1e-12);
  EXPECT_EQ(o.compute_latency.samples, 1u);
  EXPECT_NEAR(o.compute_latency.median_s, 5e-6, 1e-12);
  EXPECT_EQ(o.nccl_latency.samples, 2u);
  EXPECT_NEAR(o.nccl_latency.median_s, 10e-6, 1e-12);   // median of two: their mean
  EXPECT_EQ(o.nccl_gap.samples, 0u);
}

// The fixed cost of a kernel: the 5th percentile of memory-bound kernel durations, from 20 of them.
TEST(LaunchFit, FixedCostFromTheShortestMemoryBoundKernels) {
  MeasuredRun run;
  MeasuredRank r;
  // 40 memory-bound kernels of 2, 3, ..., 41 us (5th percentile: the third shortest, 4 us), one
  // shorter GEMM that does not count.
  for (int i = 0; i < 40; ++i) r.kernels.push_back(kernel(-1, 100.0 * i, 2.0 + (39 - i), 7, MeasuredKind::MemoryBound));
  r.kernels.push_back(kernel(-1, 5000, 0.5, 7, MeasuredKind::Gemm));
  run.ranks.push_back(r);
  LaunchOverheads o = fit_launch_overheads(run);
  EXPECT_EQ(o.fixed_cost.samples, 40u);
  EXPECT_NEAR(o.fixed_cost.median_s, 4e-6, 1e-12);
  // Below 20 memory-bound kernels: not fitted.
  run.ranks[0].kernels.resize(19);
  o = fit_launch_overheads(run);
  EXPECT_EQ(o.fixed_cost.samples, 0u);
}

TEST(LaunchFit, NoRuntimeEventsGiveNoSamples) {
  MeasuredRun run;
  MeasuredRank r;
  r.kernels.push_back(kernel(-1, 0, 10, 7, MeasuredKind::Gemm));
  r.kernels.push_back(kernel(-1, 12, 10, 7, MeasuredKind::Gemm));
  run.ranks.push_back(r);
  const LaunchOverheads o = fit_launch_overheads(run);
  EXPECT_EQ(o.compute_gap.samples + o.compute_latency.samples + o.nccl_gap.samples + o.nccl_latency.samples, 0u);
}

// A real trace (HolisticTraceAnalysis' NCCL sample, an A100 run with runtime events): both kinds of
// sample are found, and the medians are what launches cost on a GPU, microseconds, not 0 or seconds.
TEST(LaunchFit, PublicTraceGivesMicrosecondLaunchCosts) {
  const MeasuredRun run = read_measured_run(
      {std::string(HCPSIM_SOURCE_DIR) + "/tests/data/measured/hta/nccl_allreduce_2rank.json.gz"}, KernelClassifier());
  const LaunchOverheads o = fit_launch_overheads(run);
  ASSERT_GT(o.compute_gap.samples, 10u);
  ASSERT_GT(o.compute_latency.samples, 0u);
  EXPECT_GT(o.compute_gap.median_s, 0.0);
  EXPECT_LT(o.compute_gap.median_s, 100e-6);
  EXPECT_GT(o.compute_latency.median_s, 1e-6);
  EXPECT_LT(o.compute_latency.median_s, 1e-3);
  // The shortest memory-bound kernels of an A100 run take about a microsecond or a few.
  ASSERT_GT(o.fixed_cost.samples, 0u);
  EXPECT_GT(o.fixed_cost.median_s, 0.5e-6);
  EXPECT_LT(o.fixed_cost.median_s, 10e-6);
}

}  // namespace
}  // namespace hcpsim
