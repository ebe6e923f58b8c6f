// CP glue kernels on the GPU against host computations (label gpu): LSE merge, output correction
// (including the ring identity: attention over two KV halves merged = attention over the whole
// KV), a2a reorders through a simulated exchange, KV concat and dKV accumulation.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "attention_reference.h"
#include "gpu_test_util.h"
#include "kernels/attention.h"
#include "kernels/cp_ops.h"

namespace hcpsim {
namespace {

using test::DeviceBuffer;
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(CpOpsGpu, LseMergeIsLogAddExpOnTheChosenRows) {
  HCPSIM_REQUIRE_GPU();
  const int batch = 2, heads = 3, acc_len = 10, step_len = 5, offset = 5;
  std::vector<float> acc(batch * heads * acc_len), step(batch * heads * step_len);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-5.f, 5.f);
  for (auto& x : acc) x = u(rng);
  for (auto& x : step) x = u(rng);
  acc[5] = -kInf;        // row that saw nothing before
  step[0] = -kInf;       // step that saw nothing
  acc[6] = -kInf; step[1] = -kInf;   // both empty stays empty
  step[2] = -kInf;                    // acc[7] merged with nothing
  acc[8] = -kInf;                     // acc[8] takes step[3]
  DeviceBuffer da(acc.size() * 4), ds(step.size() * 4);
  da.upload(acc); ds.upload(step);
  kernels::lse_merge(static_cast<float*>(da.get()), static_cast<const float*>(ds.get()), batch, heads,
                     acc_len, step_len, offset, false, nullptr);
  const auto out = da.download<float>(acc.size());
  for (int r = 0; r < batch * heads; ++r) {
    for (int i = 0; i < acc_len; ++i) {
      const double a = acc[r * acc_len + i];
      double want = a;
      if (i >= offset) {
        const double s = step[r * step_len + i - offset];
        want = std::log(std::exp(a) + std::exp(s));
      }
      if (std::isinf(want)) {
        EXPECT_TRUE(std::isinf(out[r * acc_len + i]) && out[r * acc_len + i] < 0) << r << "," << i;
      } else {
        EXPECT_NEAR(out[r * acc_len + i], want, 1e-5) << r << "," << i;
      }
    }
  }
  // acc[5] (-inf) merged with step[0] (-inf) and acc[6] with step[1] (both -inf) stay -inf.
  EXPECT_TRUE(std::isinf(out[5]) && out[5] < 0);
  EXPECT_TRUE(std::isinf(out[6]) && out[6] < 0);
  EXPECT_FLOAT_EQ(out[7], acc[7]);    // finite (+) empty step
  EXPECT_FLOAT_EQ(out[8], step[3]);   // empty (+) finite step
}

TEST(CpOpsGpu, TwoKvHalvesMergedEqualWholeKvAttention) {
  HCPSIM_REQUIRE_GPU();
  // Ring identity (docs/schedules.md): O over [K0|K1] = sum_k exp(lse_k - lse) O_k with lse = logaddexp.
  const int b = 1, L = 128, h = 2, d = 64;
  std::mt19937 rng(11);
  std::vector<float> qf, kf, vf;
  const auto qb = test::random_bf16(b * L * h * d, rng, qf);
  const auto kb = test::random_bf16(b * L * h * d, rng, kf);
  const auto vb = test::random_bf16(b * L * h * d, rng, vf);
  DeviceBuffer dq(qb.size() * 2), dk(kb.size() * 2), dv(vb.size() * 2);
  dq.upload(qb); dk.upload(kb); dv.upload(vb);
  const std::size_t n = static_cast<std::size_t>(b) * L * h * d;
  DeviceBuffer o0(n * 2), o1(n * 2), out(n * 2), l0(b * h * L * 4), l1(b * h * L * 4), lse(b * h * L * 4);
  kernels::AttentionDims dims{b, L, L / 2, h, h, d, kernels::MaskKind::None, 0};
  const auto q = kernels::dense_view(dq.get(), L, h, d);
  auto k0 = kernels::dense_view(dk.get(), L, h, d), v0 = kernels::dense_view(dv.get(), L, h, d);
  auto k1 = k0, v1 = v0;
  k1.data = static_cast<std::uint16_t*>(k0.data) + (L / 2) * k0.seq_stride;
  v1.data = static_cast<std::uint16_t*>(v0.data) + (L / 2) * v0.seq_stride;
  kernels::attention_forward(dims, q, k0, v0, kernels::dense_view(o0.get(), L, h, d), static_cast<float*>(l0.get()), nullptr);
  kernels::attention_forward(dims, q, k1, v1, kernels::dense_view(o1.get(), L, h, d), static_cast<float*>(l1.get()), nullptr);
  auto* lsep = static_cast<float*>(lse.get());
  kernels::lse_merge(lsep, static_cast<float*>(l0.get()), b, h, L, L, 0, true, nullptr);
  kernels::lse_merge(lsep, static_cast<float*>(l1.get()), b, h, L, L, 0, false, nullptr);
  const auto ov = kernels::dense_view(out.get(), L, h, d);
  kernels::out_correction(ov, kernels::dense_view(o0.get(), L, h, d), lsep, static_cast<float*>(l0.get()), b, h, d, L, L, 0, true, nullptr);
  kernels::out_correction(ov, kernels::dense_view(o1.get(), L, h, d), lsep, static_cast<float*>(l1.get()), b, h, d, L, L, 0, false, nullptr);
  test::cuda_ok(cudaDeviceSynchronize(), "ring identity");

  test::RefDims rd{b, L, L, h, h, d, 0};
  std::vector<double> ro, rlse;
  test::ref_forward(rd, test::dense_host(qf, L, h, d), test::dense_host(kf, L, h, d), test::dense_host(vf, L, h, d), ro, rlse);
  EXPECT_LT(test::rel_max_error(test::to_floats(out.download<std::uint16_t>(n)), ro), 2e-2);
  const auto gl = lse.download<float>(b * h * L);
  for (std::size_t i = 0; i < gl.size(); ++i) ASSERT_NEAR(gl[i], rlse[i], 1e-2) << i;
}

TEST(CpOpsGpu, OutCorrectionWithOffsetTouchesOnlyTheSecondHalf) {
  HCPSIM_REQUIRE_GPU();
  const int b = 1, L = 8, h = 1, d = 8, half = 4;
  std::vector<std::uint16_t> out(b * L * h * d), step(b * half * h * d);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = test::to_bf16(1.0f);
  for (std::size_t i = 0; i < step.size(); ++i) step[i] = test::to_bf16(2.0f);
  std::vector<float> lse(L, std::log(4.0f)), lse_step(half, std::log(2.0f));   // weight 1/2
  DeviceBuffer dout(out.size() * 2), dstep(step.size() * 2), dl(L * 4), dls(half * 4);
  dout.upload(out); dstep.upload(step); dl.upload(lse); dls.upload(lse_step);
  kernels::out_correction(kernels::dense_view(dout.get(), L, h, d), kernels::dense_view(dstep.get(), half, h, d),
                          static_cast<float*>(dl.get()), static_cast<float*>(dls.get()), b, h, d, L, half, half,
                          false, nullptr);
  const auto got = test::to_floats(dout.download<std::uint16_t>(out.size()));
  for (int r = 0; r < L; ++r)
    for (int c = 0; c < d; ++c) EXPECT_FLOAT_EQ(got[r * d + c], r < half ? 1.0f : 2.0f) << r;   // 1 + 0.5*2
}

TEST(CpOpsGpu, A2aReordersRoundTripThroughASimulatedExchange) {
  HCPSIM_REQUIRE_GPU();
  // A ranks, each holding chunks (j, 2A-1-j) of a global sequence of 2A chunks of `half` tokens.
  const int A = 4, batch = 2, half = 3, s = 2 * half, heads = 8, d = 16, hp = heads / A;
  const int S = A * s;
  std::mt19937 rng(3);
  std::vector<std::uint16_t> global(static_cast<std::size_t>(batch) * S * heads * d);
  for (auto& x : global) x = static_cast<std::uint16_t>(rng());
  auto gidx = [&](int b, int tok, int h, int c) { return ((static_cast<std::size_t>(b) * S + tok) * heads + h) * d + c; };
  const std::size_t local_n = static_cast<std::size_t>(batch) * s * heads * d;
  std::vector<std::vector<std::uint16_t>> local(A, std::vector<std::uint16_t>(local_n));
  for (int j = 0; j < A; ++j)
    for (int b = 0; b < batch; ++b)
      for (int t = 0; t < s; ++t) {
        const int chunk = t < half ? j : 2 * A - 1 - j;
        for (int h = 0; h < heads; ++h)
          for (int c = 0; c < d; ++c)
            local[j][((static_cast<std::size_t>(b) * s + t) * heads + h) * d + c] = global[gidx(b, chunk * half + t % half, h, c)];
      }
  const std::size_t piece = local_n / A;   // one peer's slot
  // Before attention: pack on every rank, exchange slots (slot i of rank j -> slot j of rank i), unpack.
  std::vector<std::vector<std::uint16_t>> sent(A), after_attn(A);
  for (int j = 0; j < A; ++j) {
    DeviceBuffer src(local_n * 2), dst(local_n * 2);
    src.upload(local[j]);
    kernels::a2a_reorder(kernels::A2aStep::PackBefore, src.get(), dst.get(), A, batch, s, heads, d, nullptr);
    sent[j] = dst.download<std::uint16_t>(local_n);
  }
  for (int i = 0; i < A; ++i) {
    std::vector<std::uint16_t> recv(local_n);
    for (int j = 0; j < A; ++j) std::copy_n(sent[j].begin() + i * piece, piece, recv.begin() + j * piece);
    DeviceBuffer src(local_n * 2), dst(local_n * 2);
    src.upload(recv);
    kernels::a2a_reorder(kernels::A2aStep::UnpackBefore, src.get(), dst.get(), A, batch, s, heads, d, nullptr);
    after_attn[i] = dst.download<std::uint16_t>(local_n);
    // Rank i now holds the whole sequence in natural order for head group i.
    int bad = 0;
    for (int b = 0; b < batch; ++b)
      for (int tok = 0; tok < S; ++tok)
        for (int hh = 0; hh < hp; ++hh)
          for (int c = 0; c < d; ++c)
            bad += after_attn[i][((static_cast<std::size_t>(b) * S + tok) * hp + hh) * d + c] != global[gidx(b, tok, i * hp + hh, c)];
    EXPECT_EQ(bad, 0) << "rank " << i << " after the before-attention a2a";
  }
  // After attention: pack, exchange, unpack gives back each rank's local dual-chunk tensor.
  for (int j = 0; j < A; ++j) {
    DeviceBuffer src(local_n * 2), dst(local_n * 2);
    src.upload(after_attn[j]);
    kernels::a2a_reorder(kernels::A2aStep::PackAfter, src.get(), dst.get(), A, batch, s, heads, d, nullptr);
    sent[j] = dst.download<std::uint16_t>(local_n);
  }
  for (int i = 0; i < A; ++i) {
    std::vector<std::uint16_t> recv(local_n);
    for (int j = 0; j < A; ++j) std::copy_n(sent[j].begin() + i * piece, piece, recv.begin() + j * piece);
    DeviceBuffer src(local_n * 2), dst(local_n * 2);
    src.upload(recv);
    kernels::a2a_reorder(kernels::A2aStep::UnpackAfter, src.get(), dst.get(), A, batch, s, heads, d, nullptr);
    EXPECT_EQ(dst.download<std::uint16_t>(local_n), local[i]) << "rank " << i << " after the output a2a";
  }
}

TEST(CpOpsGpu, KvConcatAndStridedAccumulate) {
  HCPSIM_REQUIRE_GPU();
  std::vector<std::uint16_t> k(64), v(32);
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = test::to_bf16(static_cast<float>(i));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = test::to_bf16(-static_cast<float>(i));
  DeviceBuffer dk(128), dv(64), kv(192);
  dk.upload(k); dv.upload(v);
  kernels::kv_concat(kv.get(), dk.get(), 128, dv.get(), 64, nullptr);
  auto got = kv.download<std::uint16_t>(96);
  EXPECT_TRUE(std::equal(k.begin(), k.end(), got.begin()));
  EXPECT_TRUE(std::equal(v.begin(), v.end(), got.begin() + 64));

  // dst: 2 batches x 4 rows x 8; src covers rows 0..1 of each batch (a lower-section dK half).
  std::vector<std::uint16_t> dst(2 * 4 * 8), src(2 * 2 * 8);
  for (std::size_t i = 0; i < dst.size(); ++i) dst[i] = test::to_bf16(1.0f);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = test::to_bf16(0.5f * static_cast<float>(i % 8));
  DeviceBuffer dd(dst.size() * 2), ds(src.size() * 2);
  dd.upload(dst); ds.upload(src);
  kernels::accumulate_rows({dd.get(), 32, 8}, {ds.get(), 16, 8}, 2, 2, 8, false, nullptr);
  auto out = test::to_floats(dd.download<std::uint16_t>(dst.size()));
  for (int b = 0; b < 2; ++b)
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 8; ++c)
        EXPECT_FLOAT_EQ(out[b * 32 + r * 8 + c], r < 2 ? 1.0f + 0.5f * c : 1.0f) << b << "," << r << "," << c;
  kernels::accumulate_rows({dd.get(), 32, 8}, {ds.get(), 16, 8}, 2, 2, 8, true, nullptr);   // init = copy
  out = test::to_floats(dd.download<std::uint16_t>(dst.size()));
  EXPECT_FLOAT_EQ(out[3], 1.5f);
  EXPECT_FLOAT_EQ(out[16], 1.0f);   // row 2 untouched
}

TEST(CpOpsArgs, BadSizesAreRejectedOnTheHost) {
  float a = 0, b = 0;
  EXPECT_THROW(kernels::lse_merge(&a, &b, 1, 1, 4, 3, 2, false, nullptr), std::invalid_argument);
  alignas(16) static char s1[64], s2[64];
  EXPECT_THROW(kernels::a2a_reorder(kernels::A2aStep::PackBefore, s1, s2, 3, 1, 2, 4, 8, nullptr),
               std::invalid_argument);   // 4 heads over 3 ranks
  EXPECT_THROW(kernels::a2a_reorder(kernels::A2aStep::PackBefore, s1, s2, 2, 1, 3, 4, 8, nullptr),
               std::invalid_argument);   // odd local sequence
}

}  // namespace
}  // namespace hcpsim
