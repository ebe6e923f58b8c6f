// Public PyTorch profiler traces of other versions than the HolisticTraceAnalysis ones
// (tests/data/measured/README.md, kineto/): PyTorch 1.8's categories, and libkineto's own test
// output of 2026 (string pids, cuda_sync events, flow and instant events, nested kernel args).
#include <gtest/gtest.h>

#include <string>

#include "engine/measured/launch_fit.h"
#include "engine/measured/measured_input.h"

namespace hcpsim {
namespace {

const std::string kData = std::string(HCPSIM_SOURCE_DIR) + "/tests/data/measured/kineto/";

std::size_t count_kind(const MeasuredRank& r, MeasuredKind k) {
  std::size_t n = 0;
  for (const auto& x : r.kernels) n += x.kind == k;
  return n;
}

// PyTorch 1.8 on a V100 (tb_plugin's test input): categories Kernel, Memcpy and Runtime, the
// properties under computeProperties, string thread ids, ProfilerStep#2 as an operator, no rank.
TEST(KinetoVersions, PyTorch18CategoriesStepAndLaunches) {
  const MeasuredRun run = read_measured_run({kData + "pytorch18_v100_gpu_metrics_input.json.gz@0"}, KernelClassifier());
  ASSERT_EQ(run.ranks.size(), 1u);
  const MeasuredRank& r = run.ranks[0];
  EXPECT_EQ(r.rank, 0);
  ASSERT_EQ(r.kernels.size(), 32u);   // 30 kernels and 2 host-to-device copies
  EXPECT_EQ(count_kind(r, MeasuredKind::Gemm), 5u);          // gemmSN_TN x2, gemmSN_NN, volta_sgemm x2
  EXPECT_EQ(count_kind(r, MeasuredKind::Copy), 2u);
  EXPECT_EQ(count_kind(r, MeasuredKind::MemoryBound), 25u);  // elementwise and reduce kernels
  EXPECT_EQ(r.steps, 1);   // ProfilerStep#2
  std::size_t in_step = 0, launched = 0;
  for (const auto& k : r.kernels) {
    in_step += k.step == 0;
    if (k.launch_s >= 0) {
      ++launched;
      EXPECT_LE(k.launch_s, k.start_s);   // the host calls before the GPU runs it
    }
  }
  EXPECT_EQ(in_step, 32u);
  EXPECT_EQ(launched, 32u);   // every kernel's Runtime event found by correlation id
  const LaunchOverheads o = fit_launch_overheads(run);
  EXPECT_GT(o.compute_latency.samples + o.compute_gap.samples, 0u);
}

// libkineto's CuptiActivityProfilerTest output (H100, CUDA 12.9): one kernel on stream 1 whose args
// hold a nested occupancy object, launched 0.020 us before it starts; the cuda_sync events, flows
// and instants are not GPU work.
TEST(KinetoVersions, LibkinetoTestOutputOf2026) {
  const MeasuredRun run = read_measured_run({kData + "libkineto_h100_out_of_order_test.json.gz@0"}, KernelClassifier());
  ASSERT_EQ(run.ranks.size(), 1u);
  const MeasuredRank& r = run.ranks[0];
  ASSERT_EQ(r.kernels.size(), 1u);
  const MeasuredKernel& k = r.kernels[0];
  EXPECT_EQ(k.stream, 1);
  EXPECT_EQ(k.kind, MeasuredKind::Other);   // named "Kernel": no rule matches
  EXPECT_NEAR(k.end_s - k.start_s, 0.020e-6, 1e-10);
  ASSERT_GE(k.launch_s, 0);
  EXPECT_NEAR(k.start_s - k.launch_s, 0.020e-6, 1e-9);
  EXPECT_EQ(r.steps, 0);
}

}  // namespace
}  // namespace hcpsim
