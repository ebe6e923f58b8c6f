// The attention kernels at the lengths the schedules run (8K-token chunks: a causal GQA diagonal,
// a ring step's lower half, an all_gather bottom-right prefix) against the double-precision
// reference on sampled rows (label gpu), and the gradient rows of the sampled reference against the
// dense backward (host, no device).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>

#include "attention_reference.h"
#include "attention_sampled_reference.h"
#include "gpu_test_util.h"
#include "kernels/attention.h"

namespace hcpsim {
namespace {

using kernels::MaskKind;
using test::DeviceBuffer;

std::vector<float> random_floats(std::size_t n, std::mt19937& rng) {
  std::vector<float> v(n);
  std::normal_distribution<float> dist(0.f, 1.f);
  for (auto& x : v) x = dist(rng);
  return v;
}

// Rows 0, 1, 63, 64, the middle, the last and `extra` random ones.
std::vector<int> sampled(int n, int extra, std::mt19937& rng) {
  std::set<int> s{0, 1, std::min(63, n - 1), std::min(64, n - 1), n / 2, n - 1};
  std::uniform_int_distribution<int> pick(0, n - 1);
  while (static_cast<int>(s.size()) < 6 + extra) s.insert(pick(rng));
  return {s.begin(), s.end()};
}

TEST(SampledReference, GradientRowsMatchTheDenseBackward) {
  std::mt19937 rng(7);
  for (int mask : {0, 1, 2}) {
    test::RefDims d{2, 40, 56, 4, 2, 16, mask};
    const auto q = random_floats(static_cast<std::size_t>(d.batch) * d.q_len * d.heads * d.dim, rng);
    const auto k = random_floats(static_cast<std::size_t>(d.batch) * d.kv_len * d.kv_heads * d.dim, rng);
    const auto v = random_floats(k.size(), rng);
    const auto dout = random_floats(q.size(), rng);
    const auto hq = test::dense_host(q, d.q_len, d.heads, d.dim), hk = test::dense_host(k, d.kv_len, d.kv_heads, d.dim);
    const auto hv = test::dense_host(v, d.kv_len, d.kv_heads, d.dim), hdo = test::dense_host(dout, d.q_len, d.heads, d.dim);
    std::vector<double> o, lse, dq, dk, dv;
    test::ref_forward(d, hq, hk, hv, o, lse);
    test::ref_backward(d, hq, hk, hv, hdo, dq, dk, dv);
    std::vector<double> delta(lse.size(), 0.0);
    double worst = 0;
    std::vector<double> row(d.dim), row2(d.dim);
    for (int b = 0; b < d.batch; ++b)
      for (int h = 0; h < d.heads; ++h)
        for (int i = 0; i < d.q_len; ++i) {
          const std::size_t r = (static_cast<std::size_t>(b) * d.heads + h) * d.q_len + i;
          // The forward row is ref_forward's own (one implementation); the gradient rows are not.
          const double l = test::ref_forward_row(d, hq, hk, hv, b, h, i, row.data());
          const double* dense_o = &o[((static_cast<std::size_t>(b) * d.q_len + i) * d.heads + h) * d.dim];
          for (int c = 0; c < d.dim; ++c) delta[r] += hdo.at(b, i, h, c) * dense_o[c];
          test::ref_dq_row(d, hq, hk, hv, hdo, b, h, i, row.data(), l, row2.data());
          for (int c = 0; c < d.dim; ++c)
            worst = std::max(worst, std::abs(row2[c] - dq[((static_cast<std::size_t>(b) * d.q_len + i) * d.heads + h) * d.dim + c]));
        }
    for (int b = 0; b < d.batch; ++b)
      for (int hk2 = 0; hk2 < d.kv_heads; ++hk2)
        for (int j = 0; j < d.kv_len; ++j) {
          test::ref_dkv_row(d, hq, hk, hv, hdo, b, hk2, j, lse, delta, row.data(), row2.data());
          const std::size_t at = ((static_cast<std::size_t>(b) * d.kv_len + j) * d.kv_heads + hk2) * d.dim;
          for (int c = 0; c < d.dim; ++c)
            worst = std::max({worst, std::abs(row[c] - dk[at + c]), std::abs(row2[c] - dv[at + c])});
        }
    EXPECT_LT(worst, 1e-9) << "mask " << mask;
  }
}

struct LongCase {
  std::string name;
  int q_len, kv_len, heads, kv_heads, dim;
  MaskKind mask;
};

class AttentionGpuLong : public ::testing::TestWithParam<LongCase> {};

TEST_P(AttentionGpuLong, SampledRowsMatchReference) {
  HCPSIM_REQUIRE_GPU();
  const LongCase& c = GetParam();
  std::mt19937 rng(99);
  std::vector<float> qf, kf, vf, dof;
  const auto qb = test::random_bf16(static_cast<std::size_t>(c.q_len) * c.heads * c.dim, rng, qf);
  const auto kb = test::random_bf16(static_cast<std::size_t>(c.kv_len) * c.kv_heads * c.dim, rng, kf);
  const auto vb = test::random_bf16(kb.size(), rng, vf);
  const auto dob = test::random_bf16(qb.size(), rng, dof);
  DeviceBuffer dq_in(qb.size() * 2), dk_in(kb.size() * 2), dv_in(vb.size() * 2), ddo(dob.size() * 2);
  dq_in.upload(qb); dk_in.upload(kb); dv_in.upload(vb); ddo.upload(dob);
  const std::size_t lse_n = static_cast<std::size_t>(c.heads) * c.q_len;
  DeviceBuffer d_o(qb.size() * 2), d_lse(lse_n * 4), d_dq(qb.size() * 2), d_dk(kb.size() * 2), d_dv(kb.size() * 2);
  kernels::AttentionDims dims;
  dims.q_len = c.q_len; dims.kv_len = c.kv_len; dims.heads = c.heads; dims.kv_heads = c.kv_heads;
  dims.head_dim = c.dim; dims.mask = c.mask;
  auto view = [&](const DeviceBuffer& b, int len, int h) { return kernels::dense_view(b.get(), len, h, c.dim); };
  kernels::attention_forward(dims, view(dq_in, c.q_len, c.heads), view(dk_in, c.kv_len, c.kv_heads),
                             view(dv_in, c.kv_len, c.kv_heads), view(d_o, c.q_len, c.heads),
                             static_cast<float*>(d_lse.get()), nullptr);
  DeviceBuffer ws(kernels::attention_backward_workspace_bytes(dims));
  kernels::attention_backward(dims, view(dq_in, c.q_len, c.heads), view(dk_in, c.kv_len, c.kv_heads),
                              view(dv_in, c.kv_len, c.kv_heads), view(d_o, c.q_len, c.heads),
                              view(ddo, c.q_len, c.heads), static_cast<float*>(d_lse.get()),
                              view(d_dq, c.q_len, c.heads), view(d_dk, c.kv_len, c.kv_heads),
                              view(d_dv, c.kv_len, c.kv_heads), ws.get(), nullptr);
  test::cuda_ok(cudaDeviceSynchronize(), "forward + backward of a long chunk");
  const auto go = test::to_floats(d_o.download<std::uint16_t>(qb.size()));
  const auto glse = d_lse.download<float>(lse_n);
  const auto gdq = test::to_floats(d_dq.download<std::uint16_t>(qb.size()));
  const auto gdk = test::to_floats(d_dk.download<std::uint16_t>(kb.size()));
  const auto gdv = test::to_floats(d_dv.download<std::uint16_t>(kb.size()));

  test::RefDims rd{1, c.q_len, c.kv_len, c.heads, c.kv_heads, c.dim,
                   c.mask == MaskKind::None ? 0 : c.mask == MaskKind::CausalTopLeft ? 1 : 2};
  const auto hq = test::dense_host(qf, c.q_len, c.heads, c.dim), hk = test::dense_host(kf, c.kv_len, c.kv_heads, c.dim);
  const auto hv = test::dense_host(vf, c.kv_len, c.kv_heads, c.dim), hdo = test::dense_host(dof, c.q_len, c.heads, c.dim);
  std::vector<float> got_o, got_dq, got_dk, got_dv;
  std::vector<double> ref_o, ref_dq, ref_dk, ref_dv, row(c.dim), row2(c.dim);
  int lse_bad = 0;
  for (int h = 0; h < c.heads; ++h)
    for (int i : sampled(c.q_len, 10, rng)) {
      const double l = test::ref_forward_row(rd, hq, hk, hv, 0, h, i, row.data());
      const float g = glse[static_cast<std::size_t>(h) * c.q_len + i];
      if (std::isinf(l) ? !(std::isinf(g) && g < 0) : !(std::abs(g - l) < 1e-2)) ++lse_bad;
      test::ref_dq_row(rd, hq, hk, hv, hdo, 0, h, i, row.data(), l, row2.data());
      const std::size_t at = (static_cast<std::size_t>(i) * c.heads + h) * c.dim;
      ref_o.insert(ref_o.end(), row.begin(), row.end());
      ref_dq.insert(ref_dq.end(), row2.begin(), row2.end());
      got_o.insert(got_o.end(), go.begin() + at, go.begin() + at + c.dim);
      got_dq.insert(got_dq.end(), gdq.begin() + at, gdq.begin() + at + c.dim);
    }
  EXPECT_EQ(lse_bad, 0) << "sampled LSE rows off by more than 0.01 (or -inf mismatch)";
  EXPECT_LT(test::rel_max_error(got_o, ref_o), 2e-2) << "O";
  EXPECT_LT(test::rel_max_error(got_dq, ref_dq), 3e-2) << "dQ";
  // dK/dV rows from the kernel's LSE and delta (its O): the sampled rows above checked both.
  std::vector<double> lse(lse_n), delta(lse_n, 0.0);
  for (int h = 0; h < c.heads; ++h)
    for (int i = 0; i < c.q_len; ++i) {
      const std::size_t r = static_cast<std::size_t>(h) * c.q_len + i;
      lse[r] = glse[r];
      for (int ch = 0; ch < c.dim; ++ch)
        delta[r] += hdo.at(0, i, h, ch) * go[(static_cast<std::size_t>(i) * c.heads + h) * c.dim + ch];
    }
  for (int hk2 = 0; hk2 < c.kv_heads; ++hk2)
    for (int j : sampled(c.kv_len, 6, rng)) {
      test::ref_dkv_row(rd, hq, hk, hv, hdo, 0, hk2, j, lse, delta, row.data(), row2.data());
      const std::size_t at = (static_cast<std::size_t>(j) * c.kv_heads + hk2) * c.dim;
      ref_dk.insert(ref_dk.end(), row.begin(), row.end());
      ref_dv.insert(ref_dv.end(), row2.begin(), row2.end());
      got_dk.insert(got_dk.end(), gdk.begin() + at, gdk.begin() + at + c.dim);
      got_dv.insert(got_dv.end(), gdv.begin() + at, gdv.begin() + at + c.dim);
    }
  EXPECT_LT(test::rel_max_error(got_dk, ref_dk), 3e-2) << "dK";
  EXPECT_LT(test::rel_max_error(got_dv, ref_dv), 3e-2) << "dV";
}

INSTANTIATE_TEST_SUITE_P(
    Long, AttentionGpuLong,
    ::testing::Values(LongCase{"diagonal_8k_gqa4_d128", 8192, 8192, 4, 1, 128, MaskKind::CausalTopLeft},
                      LongCase{"ring_lower_half_8k_d64", 8192, 4096, 2, 2, 64, MaskKind::None},
                      LongCase{"all_gather_prefix_4k_of_8k_d128", 4096, 8192, 2, 1, 128, MaskKind::CausalBottomRight}),
    [](const ::testing::TestParamInfo<LongCase>& i) { return i.param.name; });

}  // namespace
}  // namespace hcpsim
