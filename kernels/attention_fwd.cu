// Attention chunk forward: FlashAttention-2 style, one CTA of 4 warps per 64 query rows of one
// (batch, head); each warp owns 16 rows, keeps Q fragments, the O accumulator and the running
// max / sum in registers and streams K/V tiles of 64 keys through shared memory (cp.async, two
// stages). S = Q K^T and O += P V run on mma.sync m16n8k16 (bf16 in, fp32 accumulate).
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/attention.h"
#include "kernels/attention_config.h"
#include "kernels/cuda_check.h"
#include "kernels/mma_helpers.cuh"

namespace hcpsim::kernels {
namespace {

using detail::bf16;

constexpr int kBr = ForwardTiles::kRows;   // query rows per CTA
constexpr int kBc = ForwardTiles::kKeys;   // keys per tile
constexpr int kThreads = ForwardTiles::kThreads;

struct FwdParams {
  const bf16* q; const bf16* k; const bf16* v; bf16* o; float* lse;
  std::int64_t q_bs, q_ss, q_hs, k_bs, k_ss, k_hs, v_bs, v_ss, v_hs, o_bs, o_ss, o_hs;
  int q_len, kv_len, heads, group;   // group = heads / kv_heads
  int mask_offset;                   // key k visible to row q when k <= q + mask_offset
  bool causal;
  float scale_log2;                  // softmax scale * log2(e)
};

// The rows of one thread in its warp's m16 tile: r_lo = row0 + g and r_hi = r_lo + 8.
struct WarpRows {
  int r_lo, r_hi;
  int t;   // lane & 3: the thread's column pair in a fragment
};

// Q fragments of the warp's 16 rows straight from global memory (read once); rows past q_len are 0.
template <int D>
__device__ __forceinline__ void load_q_fragments(std::uint32_t (&qf)[D / 16][4], const bf16* q, const FwdParams& p,
                                                 WarpRows w) {
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    const int c = kk * 16 + 2 * w.t;
    qf[kk][0] = w.r_lo < p.q_len ? detail::ld32(q + w.r_lo * p.q_ss + c) : 0u;
    qf[kk][1] = w.r_hi < p.q_len ? detail::ld32(q + w.r_hi * p.q_ss + c) : 0u;
    qf[kk][2] = w.r_lo < p.q_len ? detail::ld32(q + w.r_lo * p.q_ss + c + 8) : 0u;
    qf[kk][3] = w.r_hi < p.q_len ? detail::ld32(q + w.r_hi * p.q_ss + c + 8) : 0u;
  }
}

// S = Q K^T of the warp's 16 rows and one tile of kBc keys.
template <int D, bool kLdm>
__device__ __forceinline__ void tile_scores(float (&s)[kBc / 8][4], const std::uint32_t (&qf)[D / 16][4],
                                            const bf16* kt, int lane) {
  constexpr int kLd = ForwardConfig<D>::kLd;
#pragma unroll
  for (int n = 0; n < kBc / 8; ++n) s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.f;
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
#pragma unroll
    for (int n = 0; n < kBc / 8; n += 2) {
      std::uint32_t bk[4];
      detail::frag_b_nk<kLdm>(bk, kt, kLd, kk * 16, n * 8, lane);
      detail::mma_bf16_x2(s[n], s[n + 1], qf[kk], bk);
    }
  }
}

// Scales S to the log2 domain, masks it (only tiles that cross the edge or the diagonal) and
// returns the thread's partial maxima of its two rows in mx.
__device__ __forceinline__ void scale_and_mask(float (&s)[kBc / 8][4], float (&mx)[2], const FwdParams& p, int k0,
                                               int row0, WarpRows w) {
  const bool need_mask = (k0 + kBc > p.kv_len) || (p.causal && k0 + kBc - 1 > row0 + p.mask_offset);
  mx[0] = mx[1] = -INFINITY;
#pragma unroll
  for (int n = 0; n < kBc / 8; ++n) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      float x = s[n][e] * p.scale_log2;
      if (need_mask) {
        const int col = k0 + n * 8 + 2 * w.t + (e & 1);
        const int row = (e < 2) ? w.r_lo : w.r_hi;
        if (col >= p.kv_len || (p.causal && col > row + p.mask_offset)) x = -INFINITY;
      }
      s[n][e] = x;
      mx[e >> 1] = fmaxf(mx[e >> 1], x);
    }
  }
}

// The online softmax step of one tile: the new running max of each row, O and the running sums
// rescaled to it, and S replaced by P = exp2(S - max) (added to the running sums).
template <int D>
__device__ __forceinline__ void online_softmax(float (&s)[kBc / 8][4], float (&acc)[D / 8][4], float (&mx)[2],
                                               float (&m_run)[2], float (&l_run)[2]) {
  float base[2], alpha[2];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    mx[i] = fmaxf(mx[i], __shfl_xor_sync(0xffffffffu, mx[i], 1));
    mx[i] = fmaxf(mx[i], __shfl_xor_sync(0xffffffffu, mx[i], 2));
    const float m_new = fmaxf(m_run[i], mx[i]);
    base[i] = (m_new == -INFINITY) ? 0.f : m_new;   // a row with nothing visible yet
    alpha[i] = exp2f(m_run[i] - base[i]);            // exp2(-inf) = 0 on the first tile
    m_run[i] = m_new;
    l_run[i] *= alpha[i];
  }
#pragma unroll
  for (int n = 0; n < D / 8; ++n) {
    acc[n][0] *= alpha[0]; acc[n][1] *= alpha[0];
    acc[n][2] *= alpha[1]; acc[n][3] *= alpha[1];
  }
#pragma unroll
  for (int n = 0; n < kBc / 8; ++n) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      s[n][e] = exp2f(s[n][e] - base[e >> 1]);
      l_run[e >> 1] += s[n][e];
    }
  }
}

// O += P V: the C fragments of two adjacent S blocks form one A fragment (k = 16 keys).
template <int D, bool kLdm>
__device__ __forceinline__ void accumulate_pv(float (&acc)[D / 8][4], const float (&s)[kBc / 8][4], const bf16* vt,
                                              int lane) {
  constexpr int kLd = ForwardConfig<D>::kLd;
#pragma unroll
  for (int kk = 0; kk < kBc / 16; ++kk) {
    std::uint32_t a[4];
    a[0] = detail::pack_bf16(s[2 * kk][0], s[2 * kk][1]);
    a[1] = detail::pack_bf16(s[2 * kk][2], s[2 * kk][3]);
    a[2] = detail::pack_bf16(s[2 * kk + 1][0], s[2 * kk + 1][1]);
    a[3] = detail::pack_bf16(s[2 * kk + 1][2], s[2 * kk + 1][3]);
#pragma unroll
    for (int n = 0; n < D / 8; n += 2) {
      std::uint32_t bv[4];
      detail::frag_b_kn<kLdm>(bv, vt, kLd, kk * 16, n * 8, lane);
      detail::mma_bf16_x2(acc[n], acc[n + 1], a, bv);
    }
  }
}

// Finish: full row sums, normalise, write O (bf16) and LSE (natural log) of the thread's two rows.
template <int D>
__device__ __forceinline__ void write_output(const FwdParams& p, const float (&acc)[D / 8][4], const float (&m_run)[2],
                                             float (&l_run)[2], int b, int h, WarpRows w) {
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    l_run[i] += __shfl_xor_sync(0xffffffffu, l_run[i], 1);
    l_run[i] += __shfl_xor_sync(0xffffffffu, l_run[i], 2);
  }
  const float inv[2] = {l_run[0] > 0.f ? 1.f / l_run[0] : 0.f, l_run[1] > 0.f ? 1.f / l_run[1] : 0.f};
  bf16* o = p.o + b * p.o_bs + h * p.o_hs;
#pragma unroll
  for (int n = 0; n < D / 8; ++n) {
    const int c = n * 8 + 2 * w.t;
    if (w.r_lo < p.q_len) {
      *reinterpret_cast<__nv_bfloat162*>(o + w.r_lo * p.o_ss + c) =
          __floats2bfloat162_rn(acc[n][0] * inv[0], acc[n][1] * inv[0]);
    }
    if (w.r_hi < p.q_len) {
      *reinterpret_cast<__nv_bfloat162*>(o + w.r_hi * p.o_ss + c) =
          __floats2bfloat162_rn(acc[n][2] * inv[1], acc[n][3] * inv[1]);
    }
  }
  if (w.t == 0) {
    float* lse = p.lse + (static_cast<std::int64_t>(b) * p.heads + h) * p.q_len;
    constexpr float kLn2 = 0.6931471805599453f;
    if (w.r_lo < p.q_len) lse[w.r_lo] = l_run[0] > 0.f ? (m_run[0] + log2f(l_run[0])) * kLn2 : -INFINITY;
    if (w.r_hi < p.q_len) lse[w.r_hi] = l_run[1] > 0.f ? (m_run[1] + log2f(l_run[1])) * kLn2 : -INFINITY;
  }
}

template <int D, bool kLdm>
__global__ void __launch_bounds__(kThreads) attn_fwd_kernel(FwdParams p) {
  constexpr int kLd = ForwardConfig<D>::kLd;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  bf16* ks = reinterpret_cast<bf16*>(smem_raw);            // [kStages][kBc][kLd]
  bf16* vs = ks + ForwardTiles::kStages * kBc * kLd;       // [kStages][kBc][kLd]

  const int qt = blockIdx.x, h = blockIdx.y, b = blockIdx.z;
  const int hk = h / p.group;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane >> 2;
  const int row0 = qt * kBr + warp * 16;   // first query row of this warp
  const WarpRows w{row0 + g, row0 + g + 8, lane & 3};
  const bf16* q = p.q + b * p.q_bs + h * p.q_hs;
  const bf16* k = p.k + b * p.k_bs + hk * p.k_hs;
  const bf16* v = p.v + b * p.v_bs + hk * p.v_hs;

  // Keys this CTA can see: [0, kv_end).
  int kv_end = p.kv_len;
  if (p.causal) kv_end = min(kv_end, qt * kBr + kBr - 1 + p.mask_offset + 1);
  const int tiles = kv_end > 0 ? (kv_end + kBc - 1) / kBc : 0;

  auto load_kv = [&](int tile, int stage) {
    const int k0 = tile * kBc;
    detail::load_tile<D, kThreads>(ks + stage * kBc * kLd, kLd, k + k0 * p.k_ss, p.k_ss, kBc, p.kv_len - k0);
    detail::load_tile<D, kThreads>(vs + stage * kBc * kLd, kLd, v + k0 * p.v_ss, p.v_ss, kBc, p.kv_len - k0);
    detail::cp_async_commit();
  };
  if (tiles > 0) load_kv(0, 0);

  std::uint32_t qf[D / 16][4];
  load_q_fragments<D>(qf, q, p, w);

  float acc[D / 8][4];
#pragma unroll
  for (int n = 0; n < D / 8; ++n) acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0.f;
  float m_run[2] = {-INFINITY, -INFINITY};
  float l_run[2] = {0.f, 0.f};   // per-thread partial row sums

  for (int tile = 0; tile < tiles; ++tile) {
    const int stage = tile & 1;
    detail::cp_async_wait_all();
    __syncthreads();   // tile `tile` is in shared memory; stage^1 is free
    if (tile + 1 < tiles) load_kv(tile + 1, stage ^ 1);
    float s[kBc / 8][4], mx[2];
    tile_scores<D, kLdm>(s, qf, ks + stage * kBc * kLd, lane);
    scale_and_mask(s, mx, p, tile * kBc, row0, w);
    online_softmax<D>(s, acc, mx, m_run, l_run);
    accumulate_pv<D, kLdm>(acc, s, vs + stage * kBc * kLd, lane);
  }
  write_output<D>(p, acc, m_run, l_run, b, h, w);
}

template <class Config, bool kLdm>
void launch_fwd(const FwdParams& p, int batch, cudaStream_t stream) {
  constexpr int D = Config::kHeadDim;
  constexpr int smem = static_cast<int>(Config::kSharedBytes);
  // Above 48 KB of dynamic shared memory needs an explicit opt-in (per device, cheap to repeat).
  check_cuda(cudaFuncSetAttribute(attn_fwd_kernel<D, kLdm>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem),
             "attention_forward: shared memory limit");
  dim3 grid((p.q_len + kBr - 1) / kBr, p.heads, batch);
  attn_fwd_kernel<D, kLdm><<<grid, kThreads, smem, stream>>>(p);
  check_cuda(cudaGetLastError(), "attention_forward launch");
}

}  // namespace

void attention_forward(const AttentionDims& d, BhsdView q, BhsdView k, BhsdView v, BhsdView o,
                       float* lse, cudaStream_t stream) {
  const BhsdView views[] = {q, k, v, o};
  check_attention_args(d, views, 4);
  if (lse == nullptr) throw std::invalid_argument("attention_forward: lse output is null");
  if (d.q_len == 0) return;
  FwdParams p{};
  p.q = static_cast<const bf16*>(q.data); p.k = static_cast<const bf16*>(k.data);
  p.v = static_cast<const bf16*>(v.data); p.o = static_cast<bf16*>(o.data); p.lse = lse;
  p.q_bs = q.batch_stride; p.q_ss = q.seq_stride; p.q_hs = q.head_stride;
  p.k_bs = k.batch_stride; p.k_ss = k.seq_stride; p.k_hs = k.head_stride;
  p.v_bs = v.batch_stride; p.v_ss = v.seq_stride; p.v_hs = v.head_stride;
  p.o_bs = o.batch_stride; p.o_ss = o.seq_stride; p.o_hs = o.head_stride;
  p.q_len = d.q_len; p.kv_len = d.kv_len; p.heads = d.heads; p.group = d.heads / d.kv_heads;
  p.causal = d.mask != MaskKind::None;
  p.mask_offset = d.mask == MaskKind::CausalBottomRight ? d.kv_len - d.q_len : 0;
  const float scale = d.softmax_scale > 0 ? d.softmax_scale : 1.f / std::sqrt(static_cast<float>(d.head_dim));
  p.scale_log2 = scale * 1.4426950408889634f;
  with_head_dim<ForwardConfig>(d.head_dim, [&](auto config) {
    using Config = decltype(config);
    if (d.elementwise_fragments) launch_fwd<Config, false>(p, d.batch, stream);
    else launch_fwd<Config, true>(p, d.batch, stream);
  });
}

}  // namespace hcpsim::kernels
