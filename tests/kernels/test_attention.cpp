// Attention chunk forward/backward on the GPU against the double-precision CPU reference, for every
// mask section TE's CP schedules use, GQA (2:1, 4:1, 8:1), tails, a non-default softmax scale, and
// strided half-views (label gpu).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "attention_reference.h"
#include "gpu_test_util.h"
#include "kernels/attention.h"

namespace hcpsim {
namespace {

using kernels::BhsdView;
using kernels::MaskKind;
using test::DeviceBuffer;

struct Case {
  std::string name;
  int batch, q_parent, kv_parent, heads, kv_heads, dim;
  MaskKind mask;
  int q_offset, q_len, kv_offset, kv_len;   // the chunk is a row range of the parent tensors
  float softmax_scale = 0;                  // 0: 1/sqrt(dim)
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.name; }

int mask_code(MaskKind m) { return m == MaskKind::None ? 0 : m == MaskKind::CausalTopLeft ? 1 : 2; }

BhsdView view_rows(const DeviceBuffer& buf, int parent_len, int heads, int dim, int row_offset) {
  BhsdView v = kernels::dense_view(buf.get(), parent_len, heads, dim);
  v.data = static_cast<std::uint16_t*>(v.data) + row_offset * v.seq_stride;
  return v;
}

class AttentionGpu : public ::testing::TestWithParam<Case> {};

// One forward + backward of case `c`; `elementwise` selects the reference fragment loads.
void check_case(const Case& c, bool elementwise) {
  SCOPED_TRACE(elementwise ? "element-wise fragment loads" : "ldmatrix fragment loads");
  std::mt19937 rng(1234);
  std::vector<float> qf, kf, vf, dof;
  const auto qb = test::random_bf16(static_cast<std::size_t>(c.batch) * c.q_parent * c.heads * c.dim, rng, qf);
  const auto kb = test::random_bf16(static_cast<std::size_t>(c.batch) * c.kv_parent * c.kv_heads * c.dim, rng, kf);
  const auto vb = test::random_bf16(kb.size(), rng, vf);
  const auto dob = test::random_bf16(static_cast<std::size_t>(c.batch) * c.q_len * c.heads * c.dim, rng, dof);

  DeviceBuffer dq_in(qb.size() * 2), dk_in(kb.size() * 2), dv_in(vb.size() * 2), ddo(dob.size() * 2);
  dq_in.upload(qb); dk_in.upload(kb); dv_in.upload(vb); ddo.upload(dob);
  const std::size_t o_elems = static_cast<std::size_t>(c.batch) * c.q_len * c.heads * c.dim;
  const std::size_t lse_elems = static_cast<std::size_t>(c.batch) * c.heads * c.q_len;
  const std::size_t kv_elems = static_cast<std::size_t>(c.batch) * c.kv_len * c.kv_heads * c.dim;
  DeviceBuffer d_o(o_elems * 2), d_lse(lse_elems * 4), d_dq(o_elems * 2), d_dk(kv_elems * 2), d_dv(kv_elems * 2);

  kernels::AttentionDims dims;
  dims.batch = c.batch; dims.q_len = c.q_len; dims.kv_len = c.kv_len; dims.heads = c.heads;
  dims.kv_heads = c.kv_heads; dims.head_dim = c.dim; dims.mask = c.mask;
  dims.softmax_scale = c.softmax_scale;
  dims.elementwise_fragments = elementwise;
  const BhsdView q = view_rows(dq_in, c.q_parent, c.heads, c.dim, c.q_offset);
  const BhsdView k = view_rows(dk_in, c.kv_parent, c.kv_heads, c.dim, c.kv_offset);
  const BhsdView v = view_rows(dv_in, c.kv_parent, c.kv_heads, c.dim, c.kv_offset);
  const BhsdView o = kernels::dense_view(d_o.get(), c.q_len, c.heads, c.dim);
  kernels::attention_forward(dims, q, k, v, o, static_cast<float*>(d_lse.get()), nullptr);
  test::cuda_ok(cudaDeviceSynchronize(), "forward");

  test::RefDims rd{c.batch, c.q_len, c.kv_len, c.heads, c.kv_heads, c.dim, mask_code(c.mask)};
  rd.softmax_scale = c.softmax_scale;
  const test::HostView hq = test::dense_host(qf, c.q_parent, c.heads, c.dim, c.q_offset);
  const test::HostView hk = test::dense_host(kf, c.kv_parent, c.kv_heads, c.dim, c.kv_offset);
  const test::HostView hv = test::dense_host(vf, c.kv_parent, c.kv_heads, c.dim, c.kv_offset);
  std::vector<double> ro, rlse;
  test::ref_forward(rd, hq, hk, hv, ro, rlse);

  const auto go = test::to_floats(d_o.download<std::uint16_t>(o_elems));
  const auto glse = d_lse.download<float>(lse_elems);
  EXPECT_LT(test::rel_max_error(go, ro), 2e-2) << "O";
  int lse_bad = 0;
  for (std::size_t i = 0; i < lse_elems; ++i) {
    if (std::isinf(rlse[i])) {
      if (!(std::isinf(glse[i]) && glse[i] < 0)) ++lse_bad;
    } else if (!(std::abs(glse[i] - rlse[i]) < 1e-2)) {
      ++lse_bad;
    }
  }
  EXPECT_EQ(lse_bad, 0) << "LSE rows off by more than 0.01 (or -inf mismatch)";

  // Backward with the GPU's own O and LSE, as the schedules use them.
  DeviceBuffer ws(kernels::attention_backward_workspace_bytes(dims));
  const BhsdView dout = kernels::dense_view(ddo.get(), c.q_len, c.heads, c.dim);
  kernels::attention_backward(dims, q, k, v, o, dout, static_cast<float*>(d_lse.get()),
                              kernels::dense_view(d_dq.get(), c.q_len, c.heads, c.dim),
                              kernels::dense_view(d_dk.get(), c.kv_len, c.kv_heads, c.dim),
                              kernels::dense_view(d_dv.get(), c.kv_len, c.kv_heads, c.dim), ws.get(), nullptr);
  test::cuda_ok(cudaDeviceSynchronize(), "backward");
  std::vector<double> rdq, rdk, rdv;
  test::ref_backward(rd, hq, hk, hv, test::dense_host(dof, c.q_len, c.heads, c.dim), rdq, rdk, rdv);
  EXPECT_LT(test::rel_max_error(test::to_floats(d_dq.download<std::uint16_t>(o_elems)), rdq), 3e-2) << "dQ";
  EXPECT_LT(test::rel_max_error(test::to_floats(d_dk.download<std::uint16_t>(kv_elems)), rdk), 3e-2) << "dK";
  EXPECT_LT(test::rel_max_error(test::to_floats(d_dv.download<std::uint16_t>(kv_elems)), rdv), 3e-2) << "dV";
}

TEST_P(AttentionGpu, ForwardAndBackwardMatchReference) {
  HCPSIM_REQUIRE_GPU();
  check_case(GetParam(), false);
  check_case(GetParam(), true);
}

INSTANTIATE_TEST_SUITE_P(
    Sections, AttentionGpu,
    ::testing::Values(
        // name, batch, q_parent, kv_parent, heads, kv_heads, dim, mask, q_off, q_len, kv_off, kv_len
        Case{"diagonal_gqa_d128", 1, 256, 256, 4, 2, 128, MaskKind::CausalTopLeft, 0, 256, 0, 256},
        Case{"diagonal_tail_d64", 2, 96, 96, 2, 2, 64, MaskKind::CausalTopLeft, 0, 96, 0, 96},
        Case{"lower_half_kv_strided", 2, 128, 128, 2, 1, 128, MaskKind::None, 0, 128, 0, 64},
        Case{"upper_half_q_strided", 2, 128, 128, 2, 1, 128, MaskKind::None, 64, 64, 0, 128},
        Case{"full_nomask_d64", 1, 64, 192, 2, 1, 64, MaskKind::None, 0, 64, 0, 192},
        Case{"bottom_right_prefix", 1, 80, 200, 2, 1, 64, MaskKind::CausalBottomRight, 0, 80, 0, 200},
        Case{"bottom_right_masked_rows", 1, 128, 64, 2, 2, 64, MaskKind::CausalBottomRight, 0, 128, 0, 64},
        // GQA 4:1 and 8:1 (Llama-3-70B's and 405B's ratio): the backward sums dK/dV over more heads.
        Case{"gqa_4to1_causal_d128", 1, 128, 128, 8, 2, 128, MaskKind::CausalTopLeft, 0, 128, 0, 128},
        Case{"gqa_8to1_nomask_d64", 1, 64, 128, 8, 1, 64, MaskKind::None, 0, 64, 0, 128},
        // d = 128, causal, lengths that are not multiples of the 64-row tiles (partial last tiles).
        Case{"causal_tails_d128", 2, 200, 200, 2, 1, 128, MaskKind::CausalTopLeft, 0, 200, 0, 200},
        Case{"bottom_right_tails_d128", 1, 72, 136, 2, 2, 128, MaskKind::CausalBottomRight, 0, 72, 0, 136},
        // A softmax scale other than 1/sqrt(d) (e.g. a model with its own query scaling).
        Case{"softmax_scale_0p05_causal_d128", 1, 128, 128, 2, 1, 128, MaskKind::CausalTopLeft, 0, 128, 0, 128, 0.05f},
        Case{"softmax_scale_0p3_nomask_d64", 1, 64, 96, 4, 2, 64, MaskKind::None, 0, 64, 0, 96, 0.3f}),
    [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

// Argument checks run on the host: no device needed.
TEST(AttentionArgs, RejectsUnsupportedHeadDimAndGqaRatio) {
  kernels::AttentionDims d;
  d.q_len = d.kv_len = 64;
  d.heads = 4;
  d.kv_heads = 3;
  d.head_dim = 128;
  try {
    kernels::check_attention_args(d, nullptr, 0);
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("kv_heads"), std::string::npos) << e.what();
  }
  d.kv_heads = 2;
  d.head_dim = 96;
  EXPECT_THROW(kernels::check_attention_args(d, nullptr, 0), std::invalid_argument);
  d.head_dim = 64;
  EXPECT_NO_THROW(kernels::check_attention_args(d, nullptr, 0));
  alignas(16) static char buf[64];
  BhsdView misaligned{buf + 2, 0, 64, 64};
  EXPECT_THROW(kernels::check_attention_args(d, &misaligned, 1), std::invalid_argument);
}

}  // namespace
}  // namespace hcpsim
