// `hcpsim run --check` on a GPU (label gpu; skipped without a device): the CUDA tile device agrees
// with its CPU stand-in tile by tile, and the whole check of a small scenario, every attention tile
// on the GPU, passes the bf16 tolerance for each comm type, at head dims 64 and 128.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/scenario/loader.h"
#include "gpu_test_util.h"
#include "kernels/bf16_tile_kernels.h"
#include "kernels/cpu_bf16_tile_device.h"
#include "kernels/cuda_tile_device.h"
#include "kernels/run_check.h"
#include "test_files.h"

namespace hcpsim {
namespace {

using kernels::Bf16Tile;

double rel(const std::vector<std::uint16_t>& x, const std::vector<std::uint16_t>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double r = kernels::from_bf16_bits(ref[i]);
    num = std::max(num, std::abs(kernels::from_bf16_bits(x[i]) - r));
    den = std::max(den, std::abs(r));
  }
  return den > 0 ? num / den : num;
}

std::vector<std::uint16_t> random_bits(std::size_t n, std::mt19937& rng) {
  std::normal_distribution<double> d(0, 1);
  std::vector<std::uint16_t> v(n);
  for (auto& x : v) x = kernels::to_bf16_bits(d(rng));
  return v;
}

TEST(GpuCheck, CudaTilesAgreeWithTheCpuStandIn) {
  HCPSIM_REQUIRE_GPU();
  kernels::CudaTileDevice gpu;
  kernels::CpuBf16TileDevice cpu;
  std::mt19937 rng(5);
  for (const Bf16Tile t : {Bf16Tile{1, 100, 164, 8, 2, 64, true}, Bf16Tile{2, 96, 48, 4, 1, 128, true},
                           Bf16Tile{1, 64, 80, 8, 8, 128, false}}) {
    const std::size_t nq = static_cast<std::size_t>(t.batch * t.q_len * t.heads * t.head_dim);
    const std::size_t nk = static_cast<std::size_t>(t.batch * t.kv_len * t.kv_heads * t.head_dim);
    const std::size_t nl = static_cast<std::size_t>(t.batch * t.heads * t.q_len);
    const auto q = random_bits(nq, rng), k = random_bits(nk, rng), v = random_bits(nk, rng);
    const auto dout = random_bits(nq, rng);
    std::vector<std::uint16_t> o_gpu(nq), o_cpu(nq);
    std::vector<float> l_gpu(nl), l_cpu(nl);
    const kernels::Bf16TileIn in{q.data(), k.data(), v.data(), o_cpu.data(), dout.data(), l_cpu.data()};
    gpu.forward(t, in, o_gpu.data(), l_gpu.data());
    cpu.forward(t, in, o_cpu.data(), l_cpu.data());
    EXPECT_LT(rel(o_gpu, o_cpu), 2e-2) << t.q_len << "x" << t.kv_len << " d" << t.head_dim;
    for (std::size_t i = 0; i < nl; ++i) {
      if (std::isinf(l_cpu[i])) EXPECT_TRUE(std::isinf(l_gpu[i]) && l_gpu[i] < 0) << i;
      else EXPECT_NEAR(l_gpu[i], l_cpu[i], 2e-2) << i;
    }
    std::vector<std::uint16_t> dq_g(nq), dk_g(nk), dv_g(nk), dq_c(nq), dk_c(nk), dv_c(nk);
    gpu.backward(t, in, {dq_g.data(), dk_g.data(), dv_g.data()});
    cpu.backward(t, in, {dq_c.data(), dk_c.data(), dv_c.data()});
    EXPECT_LT(rel(dq_g, dq_c), 3e-2) << t.q_len << "x" << t.kv_len;
    EXPECT_LT(rel(dk_g, dk_c), 3e-2) << t.q_len << "x" << t.kv_len;
    EXPECT_LT(rel(dv_g, dv_c), 3e-2) << t.q_len << "x" << t.kv_len;
  }
}

TEST(GpuCheck, EveryCommTypePassesWithTilesOnTheGpu) {
  HCPSIM_REQUIRE_GPU();
  kernels::CudaTileDevice gpu;
  kernels::Bf16TileKernels tiles(gpu);
  for (const std::vector<std::string>& o :
       {std::vector<std::string>{"model.cp_comm_type=p2p", "model.kv_channels=64"},
        {"model.cp_comm_type=a2a", "model.kv_channels=128"},
        {"model.cp_comm_type=all_gather", "model.kv_channels=64"},
        {"model.cp_comm_type=a2a+p2p", "model.hierarchical_context_parallel_sizes=[2,2]", "model.kv_channels=128",
         "model.seq_length=200"}}) {
    LoadOptions lo;
    lo.overrides = o;
    const Scenario s = load_scenario_file(test::source_file("tests/runner/cpu-small.yaml"), lo);
    const auto c = kernels::check_in_one_process(s, &tiles, 1, kernels::default_check_tolerance(true));
    EXPECT_TRUE(c.ok) << o[0] << ": " << kernels::check_report_text(c);
    EXPECT_GT(std::max({c.out, c.dq, c.dk, c.dv}), 0.0) << o[0];
  }
}

}  // namespace
}  // namespace hcpsim
