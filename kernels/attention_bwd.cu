// Attention chunk backward (FlashAttention-2 order): a pre-pass computes delta = rowsum(dO * O);
// then one CTA of 4 warps per 64 keys of one (batch, kv head) walks over the query heads of its
// GQA group and over the query tiles, recomputing P = exp(scale*QK^T - lse), and accumulates
// dV += P^T dO and dK += dS^T Q in registers (dS = P * (dO V^T - delta)); dQ += dS K goes to an
// fp32 workspace with atomics and is converted to bf16 at the end. Correctness first: the
// transposed operands are gathered element-wise from shared memory.
#include <cmath>
#include <stdexcept>

#include "kernels/attention.h"
#include "kernels/attention_config.h"
#include "kernels/cuda_check.h"
#include "kernels/mma_helpers.cuh"

namespace hcpsim::kernels {
namespace {

using detail::bf16;

constexpr int kBr = BackwardTiles::kRows;   // query rows per inner tile
constexpr int kBc = BackwardTiles::kKeys;   // keys per CTA
constexpr int kThreads = BackwardTiles::kThreads;
constexpr int kLdP = BackwardTiles::kLdP;

struct BwdParams {
  const bf16 *q, *k, *v, *o, *dout;
  const float* lse;
  float* delta;     // [b, heads, q_len]
  float* dq_acc;    // [b, q_len, heads, D] fp32
  bf16 *dq, *dk, *dv;
  std::int64_t q_bs, q_ss, q_hs, k_bs, k_ss, k_hs, v_bs, v_ss, v_hs, o_bs, o_ss, o_hs;
  std::int64_t do_bs, do_ss, do_hs, dq_bs, dq_ss, dq_hs, dk_bs, dk_ss, dk_hs, dv_bs, dv_ss, dv_hs;
  int q_len, kv_len, heads, group, head_dim;
  int mask_offset;
  bool causal;
  float scale, scale_log2;
};

// delta[b, h, q] = sum_d dO * O, one warp per row.
__global__ void delta_kernel(BwdParams p, int batch) {
  const std::int64_t row = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  const std::int64_t rows = static_cast<std::int64_t>(batch) * p.heads * p.q_len;
  if (row >= rows) return;
  const int q = static_cast<int>(row % p.q_len);
  const int h = static_cast<int>((row / p.q_len) % p.heads);
  const int b = static_cast<int>(row / (static_cast<std::int64_t>(p.q_len) * p.heads));
  const bf16* o = p.o + b * p.o_bs + q * p.o_ss + h * p.o_hs;
  const bf16* d = p.dout + b * p.do_bs + q * p.do_ss + h * p.do_hs;
  float sum = 0.f;
  for (int c = lane; c < p.head_dim; c += 32) sum += __bfloat162float(o[c]) * __bfloat162float(d[c]);
  for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  if (lane == 0) p.delta[row] = sum;
}

// dq (bf16, strided) = dq_acc (fp32, dense [b, q, h, D]).
__global__ void dq_convert_kernel(BwdParams p, int batch) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t n = static_cast<std::int64_t>(batch) * p.q_len * p.heads * p.head_dim;
  if (i >= n) return;
  const int c = static_cast<int>(i % p.head_dim);
  const int h = static_cast<int>((i / p.head_dim) % p.heads);
  const std::int64_t bq = i / (static_cast<std::int64_t>(p.head_dim) * p.heads);
  const int q = static_cast<int>(bq % p.q_len);
  const int b = static_cast<int>(bq / p.q_len);
  p.dq[b * p.dq_bs + q * p.dq_ss + h * p.dq_hs + c] = __float2bfloat16(p.dq_acc[i]);
}

// Shared memory of one CTA: K and V of its keys, one query tile's Q and dO, P and dS of that
// tile, and its LSE (log2 domain) and delta.
template <int D>
struct BwdShared {
  static constexpr int kLd = BackwardConfig<D>::kLd;
  bf16* ks;        // [kBc][kLd]
  bf16* vs;        // [kBc][kLd]
  bf16* qs;        // [kBr][kLd]
  bf16* dos;       // [kBr][kLd]
  bf16* ps;        // [kBr][kLdP]  P, row = query
  bf16* dss;       // [kBr][kLdP]  dS
  float* lse_s;    // [kBr], log2 domain
  float* delta_s;  // [kBr]

  __device__ explicit BwdShared(unsigned char* raw)
      : ks(reinterpret_cast<bf16*>(raw)), vs(ks + kBc * kLd), qs(vs + kBc * kLd), dos(qs + kBr * kLd),
        ps(dos + kBr * kLd), dss(ps + kBr * kLdP), lse_s(reinterpret_cast<float*>(dss + kBr * kLdP)),
        delta_s(lse_s + kBr) {}
};

// One query tile of head hq (rows q0..q0+kBr) into shared memory: Q, dO, LSE and delta.
template <int D>
__device__ __forceinline__ void load_query_tile(const BwdParams& p, const BwdShared<D>& sm, int b, int hq, int q0) {
  constexpr int kLd = BwdShared<D>::kLd;
  constexpr float kLog2e = 1.4426950408889634f;
  const bf16* qg = p.q + b * p.q_bs + hq * p.q_hs;
  const bf16* dog = p.dout + b * p.do_bs + hq * p.do_hs;
  const float* lse_g = p.lse + (static_cast<std::int64_t>(b) * p.heads + hq) * p.q_len;
  const float* delta_g = p.delta + (static_cast<std::int64_t>(b) * p.heads + hq) * p.q_len;
  __syncthreads();   // previous tile fully consumed
  detail::load_tile<D, kThreads>(sm.qs, kLd, qg + q0 * p.q_ss, p.q_ss, kBr, p.q_len - q0);
  detail::load_tile<D, kThreads>(sm.dos, kLd, dog + q0 * p.do_ss, p.do_ss, kBr, p.q_len - q0);
  detail::cp_async_commit();
  for (int i = threadIdx.x; i < kBr; i += kThreads) {
    const bool in = q0 + i < p.q_len;
    const float l = in ? lse_g[q0 + i] : INFINITY;
    sm.lse_s[i] = l * kLog2e;   // -inf (row saw nothing) or +inf (padding) both give P = 0 below
    sm.delta_s[i] = in ? delta_g[q0 + i] : 0.f;
  }
  detail::cp_async_wait_all();
  __syncthreads();
}

// One operand of the backward's products in shared memory: row-major, leading dimension `ld`.
struct SmemOperand {
  const bf16* s;
  int ld;
};

// Two products over the same K, both operand pairs loaded per 16-deep step: c1 += A1 B1 and
// c2 += A2 B2 for the 16 rows at r0 and N columns, two 16x8 blocks at a time. kTransposed = false:
// A row-major [row][k], B = M^T with M [n][k] (S = Q K^T); true: A = M^T with M [k][row], B
// row-major [k][n] (dV = P^T dO).
template <int K, int N, bool kLdm, bool kTransposed>
__device__ __forceinline__ void two_products(float (&c1)[N / 8][4], float (&c2)[N / 8][4], SmemOperand a1,
                                             SmemOperand a2, SmemOperand b1, SmemOperand b2, int r0, int lane) {
  const auto load_a = [lane, r0](std::uint32_t(&a)[4], SmemOperand m, int k0) {
    if constexpr (kTransposed) detail::frag_a_cr<kLdm>(a, m.s, m.ld, r0, k0, lane);
    else detail::frag_a_rc<kLdm>(a, m.s, m.ld, r0, k0, lane);
  };
  const auto load_b = [lane](std::uint32_t(&b)[4], SmemOperand m, int k0, int n0) {
    if constexpr (kTransposed) detail::frag_b_kn<kLdm>(b, m.s, m.ld, k0, n0, lane);
    else detail::frag_b_nk<kLdm>(b, m.s, m.ld, k0, n0, lane);
  };
#pragma unroll
  for (int kk = 0; kk < K / 16; ++kk) {
    std::uint32_t fa1[4], fa2[4];
    load_a(fa1, a1, kk * 16);
    load_a(fa2, a2, kk * 16);
#pragma unroll
    for (int n = 0; n < N / 8; n += 2) {
      std::uint32_t fb1[4], fb2[4];
      load_b(fb1, b1, kk * 16, n * 8);
      load_b(fb2, b2, kk * 16, n * 8);
      detail::mma_bf16_x2(c1[n], c1[n + 1], fa1, fb1);
      detail::mma_bf16_x2(c2[n], c2[n + 1], fa2, fb2);
    }
  }
}

// S = Q K^T and dP = dO V^T for query rows [qr, qr+16) x kBc keys.
template <int D, bool kLdm>
__device__ __forceinline__ void scores_and_dp(float (&s)[kBc / 8][4], float (&dp)[kBc / 8][4], const BwdShared<D>& sm,
                                              int qr, int lane) {
  constexpr int kLd = BwdShared<D>::kLd;
#pragma unroll
  for (int n = 0; n < kBc / 8; ++n) {
#pragma unroll
    for (int e = 0; e < 4; ++e) s[n][e] = dp[n][e] = 0.f;
  }
  // (d, key) = K[key][d], V[key][d]
  two_products<D, kBc, kLdm, false>(s, dp, {sm.qs, kLd}, {sm.dos, kLd}, {sm.ks, kLd}, {sm.vs, kLd}, qr, lane);
}

// P = exp2(scale S - lse) (0 where masked) and dS = P (dP - delta) of the warp's rows, to shared
// memory as bf16.
template <int D>
__device__ __forceinline__ void store_p_ds(const BwdParams& p, const BwdShared<D>& sm, const float (&s)[kBc / 8][4],
                                           const float (&dp)[kBc / 8][4], int q0, int k0, int qr, int lane) {
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int n = 0; n < kBc / 8; ++n) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int row = qr + g + (e >= 2 ? 8 : 0);
      const int col = n * 8 + 2 * t + (e & 1);
      const int qi = q0 + row, ki = k0 + col;
      float pr = 0.f;
      const bool visible = qi < p.q_len && ki < p.kv_len && !(p.causal && ki > qi + p.mask_offset);
      if (visible && sm.lse_s[row] != -INFINITY) pr = exp2f(s[n][e] * p.scale_log2 - sm.lse_s[row]);
      const float ds = pr * (dp[n][e] - sm.delta_s[row]);
      sm.ps[row * kLdP + col] = __float2bfloat16(pr);
      sm.dss[row * kLdP + col] = __float2bfloat16(ds);
    }
  }
}

// dV += P^T dO and dK += dS^T Q for keys [kr, kr+16): (key, q) = P[q][key], dS[q][key]; (q, d) =
// dO[q][d], Q[q][d].
template <int D, bool kLdm>
__device__ __forceinline__ void accumulate_dv_dk(float (&dv_acc)[D / 8][4], float (&dk_acc)[D / 8][4],
                                                 const BwdShared<D>& sm, int kr, int lane) {
  constexpr int kLd = BwdShared<D>::kLd;
  two_products<kBr, D, kLdm, true>(dv_acc, dk_acc, {sm.ps, kLdP}, {sm.dss, kLdP}, {sm.dos, kLd}, {sm.qs, kLd}, kr,
                                   lane);
}

// dQ[rows qr..qr+16] += scale * dS K, two 16x8 blocks at a time, into the fp32 workspace.
template <int D, bool kLdm>
__device__ __forceinline__ void accumulate_dq(const BwdParams& p, const BwdShared<D>& sm, int b, int hq, int q0,
                                              int qr, int lane) {
  constexpr int kLd = BwdShared<D>::kLd;
  const int g = lane >> 2, t = lane & 3;
#pragma unroll 1
  for (int n = 0; n < D / 8; n += 2) {
    float c[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
#pragma unroll
    for (int kk = 0; kk < kBc / 16; ++kk) {
      std::uint32_t a[4], bk[4];
      detail::frag_a_rc<kLdm>(a, sm.dss, kLdP, qr, kk * 16, lane);
      detail::frag_b_kn<kLdm>(bk, sm.ks, kLd, kk * 16, n * 8, lane);   // (key, d) = K[key][d]
      detail::mma_bf16_x2(c[0], c[1], a, bk);
    }
#pragma unroll
    for (int h2 = 0; h2 < 2; ++h2) {
      const int col = (n + h2) * 8 + 2 * t;
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int qi = q0 + qr + g + (e >= 2 ? 8 : 0);
        if (qi < p.q_len) {
          float* dst = p.dq_acc + ((static_cast<std::int64_t>(b) * p.q_len + qi) * p.heads + hq) * D;
          atomicAdd(dst + col + (e & 1), c[h2][e] * p.scale);
        }
      }
    }
  }
}

// Writes dK (scaled) and dV for keys [k0 + kr, k0 + kr + 16).
template <int D>
__device__ __forceinline__ void write_dk_dv(const BwdParams& p, const float (&dk_acc)[D / 8][4],
                                            const float (&dv_acc)[D / 8][4], int b, int hk, int k0, int kr, int lane) {
  const int g = lane >> 2, t = lane & 3;
  bf16* dkg = p.dk + b * p.dk_bs + hk * p.dk_hs;
  bf16* dvg = p.dv + b * p.dv_bs + hk * p.dv_hs;
#pragma unroll
  for (int n = 0; n < D / 8; ++n) {
    const int col = n * 8 + 2 * t;
    const int klo = k0 + kr + g, khi = klo + 8;
    if (klo < p.kv_len) {
      *reinterpret_cast<__nv_bfloat162*>(dkg + klo * p.dk_ss + col) =
          __floats2bfloat162_rn(dk_acc[n][0] * p.scale, dk_acc[n][1] * p.scale);
      *reinterpret_cast<__nv_bfloat162*>(dvg + klo * p.dv_ss + col) =
          __floats2bfloat162_rn(dv_acc[n][0], dv_acc[n][1]);
    }
    if (khi < p.kv_len) {
      *reinterpret_cast<__nv_bfloat162*>(dkg + khi * p.dk_ss + col) =
          __floats2bfloat162_rn(dk_acc[n][2] * p.scale, dk_acc[n][3] * p.scale);
      *reinterpret_cast<__nv_bfloat162*>(dvg + khi * p.dv_ss + col) =
          __floats2bfloat162_rn(dv_acc[n][2], dv_acc[n][3]);
    }
  }
}

template <int D, bool kLdm>
__global__ void __launch_bounds__(kThreads) attn_bwd_kernel(BwdParams p) {
  constexpr int kLd = BwdShared<D>::kLd;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const BwdShared<D> sm(smem_raw);

  const int kt = blockIdx.x, hk = blockIdx.y, b = blockIdx.z;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int k0 = kt * kBc;
  const bf16* kg = p.k + b * p.k_bs + hk * p.k_hs + k0 * p.k_ss;
  const bf16* vg = p.v + b * p.v_bs + hk * p.v_hs + k0 * p.v_ss;
  detail::load_tile<D, kThreads>(sm.ks, kLd, kg, p.k_ss, kBc, p.kv_len - k0);
  detail::load_tile<D, kThreads>(sm.vs, kLd, vg, p.v_ss, kBc, p.kv_len - k0);
  detail::cp_async_commit();

  float dk_acc[D / 8][4], dv_acc[D / 8][4];
#pragma unroll
  for (int n = 0; n < D / 8; ++n) {
#pragma unroll
    for (int e = 0; e < 4; ++e) dk_acc[n][e] = dv_acc[n][e] = 0.f;
  }
  // First query row that sees key k0: q >= k0 - mask_offset.
  const int q_first = p.causal ? max(0, k0 - p.mask_offset) : 0;
  const int qt_begin = q_first / kBr;
  const int qt_end = (p.q_len + kBr - 1) / kBr;
  const int qr = warp * 16;   // the warp's query rows of a tile (S, dP, dQ)
  const int kr = warp * 16;   // the warp's keys (dK, dV)

  for (int hq = hk * p.group; hq < (hk + 1) * p.group; ++hq) {
    for (int qt = qt_begin; qt < qt_end; ++qt) {
      const int q0 = qt * kBr;
      load_query_tile<D>(p, sm, b, hq, q0);
      float s[kBc / 8][4], dp[kBc / 8][4];
      scores_and_dp<D, kLdm>(s, dp, sm, qr, lane);
      store_p_ds<D>(p, sm, s, dp, q0, k0, qr, lane);
      __syncthreads();
      accumulate_dv_dk<D, kLdm>(dv_acc, dk_acc, sm, kr, lane);
      accumulate_dq<D, kLdm>(p, sm, b, hq, q0, qr, lane);
    }
  }

  detail::cp_async_wait_all();   // the K/V copy is still pending when no query tile was visited
  write_dk_dv<D>(p, dk_acc, dv_acc, b, hk, k0, kr, lane);
}

template <class Config, bool kLdm>
void launch_bwd(const BwdParams& p, int batch, int kv_heads, cudaStream_t stream) {
  constexpr int D = Config::kHeadDim;
  constexpr int smem = static_cast<int>(Config::kSharedBytes);
  check_cuda(cudaFuncSetAttribute(attn_bwd_kernel<D, kLdm>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem),
             "attention_backward: shared memory limit");
  dim3 grid((p.kv_len + kBc - 1) / kBc, kv_heads, batch);
  attn_bwd_kernel<D, kLdm><<<grid, kThreads, smem, stream>>>(p);
  check_cuda(cudaGetLastError(), "attention_backward launch");
}

}  // namespace

std::size_t attention_backward_workspace_bytes(const AttentionDims& d) {
  const std::size_t rows = static_cast<std::size_t>(d.batch) * d.heads * d.q_len;
  const std::size_t dq = rows * d.head_dim * sizeof(float);
  return ((dq + 255) / 256) * 256 + rows * sizeof(float);
}

void attention_backward(const AttentionDims& d, BhsdView q, BhsdView k, BhsdView v, BhsdView o,
                        BhsdView dout, const float* lse, BhsdView dq, BhsdView dk, BhsdView dv,
                        void* workspace, cudaStream_t stream) {
  const BhsdView views[] = {q, k, v, o, dout, dq, dk, dv};
  check_attention_args(d, views, 8);
  if (lse == nullptr || workspace == nullptr) {
    throw std::invalid_argument("attention_backward: lse and workspace must not be null");
  }
  BwdParams p{};
  p.q = static_cast<const bf16*>(q.data); p.k = static_cast<const bf16*>(k.data);
  p.v = static_cast<const bf16*>(v.data); p.o = static_cast<const bf16*>(o.data);
  p.dout = static_cast<const bf16*>(dout.data); p.lse = lse;
  p.dq = static_cast<bf16*>(dq.data); p.dk = static_cast<bf16*>(dk.data); p.dv = static_cast<bf16*>(dv.data);
  p.q_bs = q.batch_stride; p.q_ss = q.seq_stride; p.q_hs = q.head_stride;
  p.k_bs = k.batch_stride; p.k_ss = k.seq_stride; p.k_hs = k.head_stride;
  p.v_bs = v.batch_stride; p.v_ss = v.seq_stride; p.v_hs = v.head_stride;
  p.o_bs = o.batch_stride; p.o_ss = o.seq_stride; p.o_hs = o.head_stride;
  p.do_bs = dout.batch_stride; p.do_ss = dout.seq_stride; p.do_hs = dout.head_stride;
  p.dq_bs = dq.batch_stride; p.dq_ss = dq.seq_stride; p.dq_hs = dq.head_stride;
  p.dk_bs = dk.batch_stride; p.dk_ss = dk.seq_stride; p.dk_hs = dk.head_stride;
  p.dv_bs = dv.batch_stride; p.dv_ss = dv.seq_stride; p.dv_hs = dv.head_stride;
  p.q_len = d.q_len; p.kv_len = d.kv_len; p.heads = d.heads; p.group = d.heads / d.kv_heads;
  p.head_dim = d.head_dim;
  p.causal = d.mask != MaskKind::None;
  p.mask_offset = d.mask == MaskKind::CausalBottomRight ? d.kv_len - d.q_len : 0;
  p.scale = d.softmax_scale > 0 ? d.softmax_scale : 1.f / std::sqrt(static_cast<float>(d.head_dim));
  p.scale_log2 = p.scale * 1.4426950408889634f;

  const std::size_t rows = static_cast<std::size_t>(d.batch) * d.heads * d.q_len;
  const std::size_t dq_bytes = ((rows * d.head_dim * sizeof(float) + 255) / 256) * 256;
  p.dq_acc = static_cast<float*>(workspace);
  p.delta = reinterpret_cast<float*>(static_cast<char*>(workspace) + dq_bytes);
  if (rows > 0) {
    check_cuda(cudaMemsetAsync(p.dq_acc, 0, rows * d.head_dim * sizeof(float), stream), "attention_backward");
    const int threads = 256;
    delta_kernel<<<static_cast<unsigned>((rows * 32 + threads - 1) / threads), threads, 0, stream>>>(p, d.batch);
    check_cuda(cudaGetLastError(), "attention_backward: delta launch");
  }
  if (d.kv_len > 0) {   // also with q_len == 0: writes dK = dV = 0
    with_head_dim<BackwardConfig>(d.head_dim, [&](auto config) {
      using Config = decltype(config);
      if (d.elementwise_fragments) launch_bwd<Config, false>(p, d.batch, d.kv_heads, stream);
      else launch_bwd<Config, true>(p, d.batch, d.kv_heads, stream);
    });
  }
  if (rows > 0) {
    const std::size_t n = rows * d.head_dim;
    dq_convert_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(p, d.batch);
    check_cuda(cudaGetLastError(), "attention_backward: dq launch");
  }
}

}  // namespace hcpsim::kernels
