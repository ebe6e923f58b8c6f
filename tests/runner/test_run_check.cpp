// The path of `hcpsim run --check` on GPUs, proven on CPUs: bf16 packing of the schedule's tiles
// (bf16_tile_kernels.h), the whole check with every attention tile rounded to bf16 as the CUDA
// kernels see it (CpuBf16TileDevice stands in for the GPU), the size limits and the report. The
// GPU itself is exercised by tests/kernels/test_gpu_check.cpp (label gpu).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/reference/attention_kernels.h"
#include "engine/scenario/loader.h"
#include "kernels/bf16_tile_kernels.h"
#include "kernels/cpu_bf16_tile_device.h"
#include "kernels/run_check.h"

namespace hcpsim {
namespace {

using kernels::Bf16Tile;
using kernels::Bf16TileKernels;
using kernels::CpuBf16TileDevice;
using reference::Tensor;
using reference::Tile;

Scenario small(std::vector<std::string> overrides) {
  LoadOptions lo;
  lo.overrides = std::move(overrides);
  return load_scenario_file(std::string(HCPSIM_SOURCE_DIR) + "/tests/runner/cpu-small.yaml", lo);
}

Tensor<double> random_tensor(std::int64_t b, std::int64_t l, std::int64_t h, std::int64_t d, std::mt19937& rng) {
  std::normal_distribution<double> dist(0, 1);
  Tensor<double> t(b, l, h, d);
  for (auto& x : t.v) x = dist(rng);
  return t;
}

double max_rel(const Tensor<double>& x, const Tensor<double>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.v.size(); ++i) {
    num = std::max(num, std::abs(x.v[i] - ref.v[i]));
    den = std::max(den, std::abs(ref.v[i]));
  }
  return num / den;
}

TEST(Bf16Tiles, RoundsToNearestEven) {
  EXPECT_EQ(kernels::to_bf16_bits(1.0), 0x3f80);
  EXPECT_EQ(kernels::to_bf16_bits(-2.0), 0xc000);
  EXPECT_EQ(kernels::to_bf16_bits(1.0 + std::ldexp(1.0, -8)), 0x3f80);       // tie: to the even 1.0
  EXPECT_EQ(kernels::to_bf16_bits(1.0 + 3 * std::ldexp(1.0, -8)), 0x3f82);   // tie: to the even 1 + 2^-6
  EXPECT_EQ(kernels::to_bf16_bits(1.0 + std::ldexp(1.0, -7) * 0.75), 0x3f81);
  EXPECT_EQ(kernels::to_bf16_bits(std::numeric_limits<double>::quiet_NaN()), 0x7fc0);
  EXPECT_EQ(kernels::from_bf16_bits(0x3f81), 1.0 + std::ldexp(1.0, -7));
}

TEST(Bf16Tiles, PackAndUnpackRowsAndColumns) {
  std::mt19937 rng(3);
  const Tensor<double> x = random_tensor(2, 10, 3, 12, rng);
  const auto packed = kernels::pack_bf16_rows(x, 4, 5, 4, 8);   // rows 4..8, columns 4..11
  ASSERT_EQ(packed.size(), 2u * 5 * 3 * 8);
  EXPECT_EQ(packed[0], kernels::to_bf16_bits(x.at(0, 4, 0, 4)));
  EXPECT_EQ(packed.back(), kernels::to_bf16_bits(x.at(1, 8, 2, 11)));
  Tensor<double> y(2, 10, 3, 12, 7.0);
  kernels::unpack_bf16_rows(packed, y, 4, 5, 4, 8);
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t l = 0; l < 10; ++l)
      for (std::int64_t h = 0; h < 3; ++h)
        for (std::int64_t d = 0; d < 12; ++d) {
          const bool inside = l >= 4 && l < 9 && d >= 4;
          const double want = inside ? kernels::from_bf16_bits(kernels::to_bf16_bits(x.at(b, l, h, d))) : 7.0;
          ASSERT_EQ(y.at(b, l, h, d), want) << b << ' ' << l << ' ' << h << ' ' << d;
        }
  EXPECT_THROW(kernels::pack_bf16_rows(x, 8, 3, 0, 12), std::out_of_range);
  EXPECT_THROW(kernels::unpack_bf16_rows(packed, y, 6, 5, 4, 8), std::out_of_range);
}

// A causal tile off the diagonal (bottom-right rule), GQA 4:1, K and V in one combined tensor.
TEST(Bf16Tiles, ForwardAndBackwardMatchTheReferenceKernels) {
  std::mt19937 rng(11);
  const std::int64_t B = 2, Lq = 24, Lk = 40, H = 8, G = 2, D = 16;
  const Tensor<double> q = random_tensor(B, Lq, H, D, rng);
  const Tensor<double> kv = random_tensor(B, Lk, G, 2 * D, rng);
  const Tensor<double> dout = random_tensor(B, Lq, H, D, rng);
  const Tile tile{8, 12, 4, 20, true};
  Tensor<double> o_ref, l_ref, o, l;
  reference::attention_forward(q, kv, kv, D, D, tile, o_ref, l_ref);
  CpuBf16TileDevice cpu;
  Bf16TileKernels tiles(cpu);
  tiles.forward(q, kv, kv, D, D, tile, o, l, nullptr);
  ASSERT_TRUE(o.same_shape(o_ref));
  ASSERT_TRUE(l.same_shape(l_ref));
  const double e_out = max_rel(o, o_ref);
  EXPECT_LT(e_out, 2e-2);
  EXPECT_GT(e_out, 1e-5);   // the tile really went through bf16
  for (std::int64_t i = 0; i < Lq; ++i) {
    const bool in_tile = i >= tile.q_off && i < tile.q_off + tile.q_len;
    for (std::int64_t h = 0; h < H; ++h) {
      if (in_tile) {
        EXPECT_NEAR(l.at(1, i, h, 0), l_ref.at(1, i, h, 0), 5e-2) << i;
      } else {
        EXPECT_EQ(l.at(1, i, h, 0), -std::numeric_limits<double>::infinity()) << i;
        EXPECT_EQ(o.at(1, i, h, 3), 0.0) << i;
      }
    }
  }
  Tensor<double> dq_ref, dk_ref, dv_ref, dq, dk, dv;
  reference::attention_backward(q, kv, kv, D, D, o_ref, dout, l_ref, tile, dq_ref, dk_ref, dv_ref);
  tiles.backward(q, kv, kv, D, D, o_ref, dout, l_ref, tile, dq, dk, dv, nullptr);
  ASSERT_TRUE(dq.same_shape(dq_ref) && dk.same_shape(dk_ref) && dv.same_shape(dv_ref));
  EXPECT_LT(max_rel(dq, dq_ref), 3e-2);
  EXPECT_LT(max_rel(dk, dk_ref), 3e-2);
  EXPECT_LT(max_rel(dv, dv_ref), 3e-2);
  EXPECT_GT(max_rel(dv, dv_ref), 1e-5);
  EXPECT_EQ(dk.at(0, 2, 1, 5), 0.0);   // key row 2 is outside the tile's keys (4..23)

  const Tensor<double> keep(B, Lq, 1, Lk, 1.0);
  EXPECT_THROW(tiles.forward(q, kv, kv, D, D, tile, o, l, &keep), std::invalid_argument);
}

// A device that ignores the causal rule: what a wrong mask in a GPU kernel would do.
class NoMaskDevice final : public kernels::Bf16TileDevice {
 public:
  const char* name() const override { return "cpu bf16 without masks"; }
  void forward(const Bf16Tile& t, const kernels::Bf16TileIn& in, std::uint16_t* o, float* lse) override {
    Bf16Tile u = t;
    u.causal = false;
    inner_.forward(u, in, o, lse);
  }
  void backward(const Bf16Tile& t, const kernels::Bf16TileIn& in, const kernels::Bf16TileGrads& out) override {
    inner_.backward(t, in, out);
  }

 private:
  CpuBf16TileDevice inner_;
};

// The whole check path of `run --emulate-ranks --check` with bf16 tiles, for each comm type.
TEST(RunCheck, Bf16TilesPassTheBf16ToleranceOnEveryCommType) {
  const double tol = kernels::default_check_tolerance(true);
  for (const std::vector<std::string>& o :
       {std::vector<std::string>{"model.cp_comm_type=p2p"}, {"model.cp_comm_type=a2a"},
        {"model.cp_comm_type=all_gather"},
        {"model.cp_comm_type=a2a+p2p", "model.hierarchical_context_parallel_sizes=[2,2]"}}) {
    std::vector<std::string> ov = o;
    ov.push_back("model.kv_channels=64");
    const Scenario s = small(ov);
    ASSERT_NO_THROW(kernels::require_real_data_size(s, true, true)) << o[0];
    CpuBf16TileDevice cpu;
    Bf16TileKernels tiles(cpu);
    const auto c = kernels::check_in_one_process(s, &tiles, 1, tol);
    EXPECT_TRUE(c.ok) << o[0] << ": " << kernels::check_report_text(c);
    const double worst = std::max({c.out, c.dq, c.dk, c.dv});
    EXPECT_GT(worst, 1e-5) << o[0];   // bf16 rounding is visible: the tiles were used
    EXPECT_GT(c.tasks, 0u);
    const auto exact = kernels::check_in_one_process(s, nullptr, 1, kernels::default_check_tolerance(false));
    EXPECT_TRUE(exact.ok) << o[0] << ": " << kernels::check_report_text(exact);
    EXPECT_LT(std::max({exact.out, exact.dq, exact.dk, exact.dv}), 1e-10) << o[0];
  }
}

TEST(RunCheck, AWrongMaskInTheTilesFailsTheCheck) {
  const Scenario s = small({"model.cp_comm_type=p2p", "model.kv_channels=64"});
  NoMaskDevice wrong;
  Bf16TileKernels tiles(wrong);
  const auto c = kernels::check_in_one_process(s, &tiles, 1, kernels::default_check_tolerance(true));
  EXPECT_FALSE(c.ok);
  EXPECT_GT(c.out, kernels::default_check_tolerance(true));
}

TEST(RunCheck, SizeLimitsNameTheFieldAndTheLimit) {
  auto message = [](const Scenario& s, bool check, bool bf16) {
    try {
      kernels::require_real_data_size(s, check, bf16);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message(small({}), true, false), "");
  const std::string dim = message(small({}), true, true);   // kv_channels 8
  EXPECT_NE(dim.find("model.kv_channels"), std::string::npos) << dim;
  EXPECT_NE(dim.find("64 or 128"), std::string::npos) << dim;
  EXPECT_EQ(message(small({}), false, true), "");   // without --check the GPU limits do not apply
  const Scenario big_check = small({"model.seq_length=8192", "model.kv_channels=64"});   // 2^13^2 x 16 x 64 = 2^36
  const std::string work = message(big_check, true, true);
  EXPECT_NE(work.find("2^32"), std::string::npos) << work;
  EXPECT_NE(work.find("model.seq_length up to 2048"), std::string::npos) << work;
  EXPECT_EQ(message(big_check, false, false), "");   // 2^23 values: a plain --device cpu run holds them
  const std::string values = message(small({"model.seq_length=32768", "model.kv_channels=64"}), false, false);
  EXPECT_NE(values.find("2^24"), std::string::npos) << values;
  EXPECT_NE(values.find("model.seq_length (32768)"), std::string::npos) << values;
  // The CUDA kernels have no DSA sparse mask: both HyperParallel DSA styles are refused on GPUs,
  // not on the CPU stand-in.
  for (const HpStyle style : {HpStyle::DSA, HpStyle::AsyncDSA}) {
    Scenario dsa = small({"model.kv_channels=64"});
    dsa.hyperparallel.enabled = true;
    dsa.hyperparallel.style = style;
    const std::string refused = message(dsa, true, true);
    EXPECT_NE(refused.find("no DSA sparse mask"), std::string::npos) << to_string(style) << ": " << refused;
    EXPECT_EQ(message(dsa, true, false), "") << to_string(style);
  }
}

TEST(RunCheck, ReportTextAndJson) {
  reference::VerifyResult c;
  c.out = 1e-3;
  c.dq = 4e-3;
  c.dk = 2e-3;
  c.dv = 3e-3;
  c.tolerance = 2e-2;
  c.ok = true;
  const std::string text = kernels::check_report_text(c);
  EXPECT_EQ(text, "check: max relative error 0.004 (O 0.001, dQ 0.004, dK 0.002, dV 0.003; tolerance 2e-02)");
  const auto j = kernels::check_report_json(c, "cuda bf16");
  EXPECT_DOUBLE_EQ(j.at("max_rel_error").get<double>(), 4e-3);
  EXPECT_EQ(j.at("tiles"), "cuda bf16");
  EXPECT_TRUE(j.at("ok").get<bool>());
  EXPECT_FALSE(j.contains("detail"));
  c.detail = "rank 2 layer 0 has no results";
  c.ok = false;
  EXPECT_NE(kernels::check_report_text(c).find("\ncheck: rank 2 layer 0 has no results"), std::string::npos);
  EXPECT_FALSE(kernels::check_report_json(c, "").contains("tiles"));
}

}  // namespace
}  // namespace hcpsim
