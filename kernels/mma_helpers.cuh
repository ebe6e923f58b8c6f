#pragma once
// Warp-level bf16 tensor-core helpers (mma.sync m16n8k16, fp32 accumulate; sm_80+). Fragment
// layouts (PTX ISA, "Matrix fragments for mma.m16n8k16"): lane = 4*g + t;
// A 16x16: a0 (g, 2t..2t+1), a1 (g+8, 2t..), a2 (g, 2t+8..), a3 (g+8, 2t+8..);
// B 16x8:  b0 (k 2t..2t+1, n g), b1 (k 2t+8.., n g);  C 16x8: c0,c1 (g, 2t..), c2,c3 (g+8, 2t..).
#include <cuda_bf16.h>
#include <cstdint>

namespace hcpsim::kernels::detail {

using bf16 = __nv_bfloat16;

__device__ __forceinline__ void mma_bf16(float c[4], const std::uint32_t a[4], std::uint32_t b0,
                                         std::uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The two adjacent 16x8 products of one A fragment with the B fragments a frag_b_* call loads:
// c0 += A B[0..1], c1 += A B[2..3].
__device__ __forceinline__ void mma_bf16_x2(float c0[4], float c1[4], const std::uint32_t a[4],
                                            const std::uint32_t b[4]) {
  mma_bf16(c0, a, b[0], b[1]);
  mma_bf16(c1, a, b[2], b[3]);
}

// Two floats to a bf16x2 register; `lo` goes to the low half (the smaller column/k index).
__device__ __forceinline__ std::uint32_t pack_bf16(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<std::uint32_t*>(&v);
}

__device__ __forceinline__ std::uint32_t pack_raw(bf16 lo, bf16 hi) {
  return static_cast<std::uint32_t>(__bfloat16_as_ushort(lo)) |
         (static_cast<std::uint32_t>(__bfloat16_as_ushort(hi)) << 16);
}

__device__ __forceinline__ std::uint32_t ld32(const bf16* p) {
  return *reinterpret_cast<const std::uint32_t*>(p);
}

// Element (r, c) of a shared-memory matrix: row-major S[r*ld+c], or stored transposed S[c*ld+r].
template <bool kTransposed>
__device__ __forceinline__ bf16 elem(const bf16* s, int ld, int r, int c) {
  return kTransposed ? s[c * ld + r] : s[r * ld + c];
}

// A fragment of the 16x16 block at (r0, c0), element by element (any layout).
template <bool kTransposed>
__device__ __forceinline__ void load_a(std::uint32_t a[4], const bf16* s, int ld, int r0, int c0,
                                       int g, int t) {
  a[0] = pack_raw(elem<kTransposed>(s, ld, r0 + g, c0 + 2 * t), elem<kTransposed>(s, ld, r0 + g, c0 + 2 * t + 1));
  a[1] = pack_raw(elem<kTransposed>(s, ld, r0 + g + 8, c0 + 2 * t), elem<kTransposed>(s, ld, r0 + g + 8, c0 + 2 * t + 1));
  a[2] = pack_raw(elem<kTransposed>(s, ld, r0 + g, c0 + 2 * t + 8), elem<kTransposed>(s, ld, r0 + g, c0 + 2 * t + 9));
  a[3] = pack_raw(elem<kTransposed>(s, ld, r0 + g + 8, c0 + 2 * t + 8), elem<kTransposed>(s, ld, r0 + g + 8, c0 + 2 * t + 9));
}

// B fragment of the 16x8 block at (k0, n0); element (k, n) read through elem<kTransposed>.
template <bool kTransposed>
__device__ __forceinline__ void load_b(std::uint32_t b[2], const bf16* s, int ld, int k0, int n0,
                                       int g, int t) {
  b[0] = pack_raw(elem<kTransposed>(s, ld, k0 + 2 * t, n0 + g), elem<kTransposed>(s, ld, k0 + 2 * t + 1, n0 + g));
  b[1] = pack_raw(elem<kTransposed>(s, ld, k0 + 2 * t + 8, n0 + g), elem<kTransposed>(s, ld, k0 + 2 * t + 9, n0 + g));
}

// ldmatrix.x4.trans: B fragments of two adjacent 16x8 blocks (n0 and n0+8) of a row-major
// [k][n] shared-memory matrix; b[0..1] for n0, b[2..3] for n0+8. Rows must be 16-byte aligned.
__device__ __forceinline__ void ldmatrix_b_trans_x4(std::uint32_t b[4], const bf16* s, int ld,
                                                    int k0, int n0, int lane) {
  const bf16* p = s + (k0 + (lane & 15)) * ld + n0 + (lane >> 4) * 8;
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3])
               : "r"(addr));
}

// ldmatrix.x4 (no transpose): B fragments of two adjacent 16x8 blocks of B = M^T where M is a
// row-major [n][k] shared-memory matrix (K stored [key][dim] for S = Q K^T): rows n0..n0+15,
// columns k0..k0+15; b[0..1] for keys n0..n0+7, b[2..3] for keys n0+8..n0+15.
// Lanes 0-7 address rows n0+i at k0, 8-15 rows n0+i at k0+8, 16-23 rows n0+8+i at k0,
// 24-31 rows n0+8+i at k0+8; each thread receives row (lane/4), columns 2*(lane%4)+{0,1}.
__device__ __forceinline__ void ldmatrix_b_x4(std::uint32_t b[4], const bf16* s, int ld, int n0,
                                              int k0, int lane) {
  const int row = n0 + (lane & 7) + ((lane >> 4) << 3);
  const int col = k0 + ((lane >> 3) & 1) * 8;
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(s + row * ld + col));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3])
               : "r"(addr));
}

// ldmatrix.x4: A fragment of the 16x16 block at (r0, c0) of a row-major [r][c] shared matrix.
// Lanes 0-7 address rows r0+i at c0 (a0), 8-15 rows r0+8+i at c0 (a1), 16-23 rows r0+i at c0+8
// (a2), 24-31 rows r0+8+i at c0+8 (a3).
__device__ __forceinline__ void ldmatrix_a_x4(std::uint32_t a[4], const bf16* s, int ld, int r0, int c0,
                                              int lane) {
  const int row = r0 + (lane & 7) + ((lane >> 3) & 1) * 8;
  const int col = c0 + (lane >> 4) * 8;
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(s + row * ld + col));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
               : "r"(addr));
}

// ldmatrix.x4.trans: A fragment of the 16x16 block at (r0, c0) of A = M^T, M row-major [c][r] in
// shared memory (A(r, c) = M[c][r]; e.g. P^T from P stored [query][key]). Lanes 0-7 address M rows
// c0+i at column r0 (a0), 8-15 rows c0+i at r0+8 (a1), 16-23 rows c0+8+i at r0 (a2), 24-31 rows
// c0+8+i at r0+8 (a3); the transpose hands each thread A(r0+g(+8), c0+2t(+8)..+1).
__device__ __forceinline__ void ldmatrix_a_trans_x4(std::uint32_t a[4], const bf16* s, int ld, int r0,
                                                    int c0, int lane) {
  const int row = c0 + (lane & 7) + (lane >> 4) * 8;
  const int col = r0 + ((lane >> 3) & 1) * 8;
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(s + row * ld + col));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
               : "r"(addr));
}

// Fragment loaders with a compile-time choice: ldmatrix (kLdm) or element-wise gathers (the
// slow reference path, kept so a GPU test can tell a wrong ldmatrix mapping from a wrong kernel).
// Element-wise B fragments of the two adjacent 16x8 blocks at (k0, n0) and (k0, n0+8).
template <bool kTransposed>
__device__ __forceinline__ void load_b_x2(std::uint32_t b[4], const bf16* s, int ld, int k0, int n0, int lane) {
  load_b<kTransposed>(b, s, ld, k0, n0, lane >> 2, lane & 3);
  load_b<kTransposed>(b + 2, s, ld, k0, n0 + 8, lane >> 2, lane & 3);
}
// B fragments of two adjacent 16x8 blocks (n0, n0+8) of B = M^T, M row-major [n][k] (K as [key][d]).
template <bool kLdm>
__device__ __forceinline__ void frag_b_nk(std::uint32_t b[4], const bf16* s, int ld, int k0, int n0, int lane) {
  if constexpr (kLdm) ldmatrix_b_x4(b, s, ld, n0, k0, lane);
  else load_b_x2<true>(b, s, ld, k0, n0, lane);
}
// B fragments of two adjacent 16x8 blocks (n0, n0+8) of a row-major [k][n] matrix (V as [key][d]).
template <bool kLdm>
__device__ __forceinline__ void frag_b_kn(std::uint32_t b[4], const bf16* s, int ld, int k0, int n0, int lane) {
  if constexpr (kLdm) ldmatrix_b_trans_x4(b, s, ld, k0, n0, lane);
  else load_b_x2<false>(b, s, ld, k0, n0, lane);
}
// A fragment at (r0, c0) of a row-major [r][c] matrix.
template <bool kLdm>
__device__ __forceinline__ void frag_a_rc(std::uint32_t a[4], const bf16* s, int ld, int r0, int c0, int lane) {
  if constexpr (kLdm) ldmatrix_a_x4(a, s, ld, r0, c0, lane);
  else load_a<false>(a, s, ld, r0, c0, lane >> 2, lane & 3);
}
// A fragment at (r0, c0) of A = M^T with M row-major [c][r].
template <bool kLdm>
__device__ __forceinline__ void frag_a_cr(std::uint32_t a[4], const bf16* s, int ld, int r0, int c0, int lane) {
  if constexpr (kLdm) ldmatrix_a_trans_x4(a, s, ld, r0, c0, lane);
  else load_a<true>(a, s, ld, r0, c0, lane >> 2, lane & 3);
}

// 16-byte global -> shared copy (cp.async, sm_80+).
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(addr), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::); }

// Copies `rows` rows of D bf16 (row i of global at g + i*g_stride) into shared rows of `ld`
// elements; rows at or past `valid` are zero-filled. All threads of the block take part.
template <int D, int kThreads>
__device__ __forceinline__ void load_tile(bf16* s, int ld, const bf16* gsrc, std::int64_t g_stride,
                                          int rows, int valid) {
  constexpr int kChunks = D / 8;   // 16-byte chunks per row
  for (int i = threadIdx.x; i < rows * kChunks; i += kThreads) {
    const int r = i / kChunks;
    const int c = (i % kChunks) * 8;
    if (r < valid) {
      cp_async16(s + r * ld + c, gsrc + r * g_stride + c);
    } else {
      *reinterpret_cast<uint4*>(s + r * ld + c) = make_uint4(0, 0, 0, 0);
    }
  }
}

}  // namespace hcpsim::kernels::detail
