// LSE merge, output correction, a2a reorders, KV concat, dKV accumulation (see cp_ops.h).
#include <cuda_bf16.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/cp_ops.h"
#include "kernels/cuda_check.h"

namespace hcpsim::kernels {
namespace {

using bf16 = __nv_bfloat16;

unsigned blocks_for(std::int64_t n, int threads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

__device__ __forceinline__ float log_add_exp(float a, float b) {
  const float mx = fmaxf(a, b), mn = fminf(a, b);
  if (mx == -INFINITY) return -INFINITY;
  return mx + log1pf(expf(mn - mx));
}

__global__ void lse_merge_kernel(float* acc, const float* step, int bh, int acc_len, int step_len,
                                 int offset, bool init) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<std::int64_t>(bh) * step_len) return;
  const std::int64_t row = i / step_len, col = i % step_len;
  float* a = acc + row * acc_len + offset + col;
  *a = init ? step[i] : log_add_exp(*a, step[i]);
}

struct CorrParams {
  bf16* out; const bf16* step; const float* lse; const float* lse_step;
  std::int64_t o_bs, o_ss, o_hs, s_bs, s_ss, s_hs;
  int heads, head_dim, acc_len, step_len, offset;
  bool init;
};

// One thread per 2 elements.
__global__ void out_correction_kernel(CorrParams p, std::int64_t n_pairs) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n_pairs) return;
  const int c = static_cast<int>(i % (p.head_dim / 2)) * 2;
  std::int64_t r = i / (p.head_dim / 2);
  const int h = static_cast<int>(r % p.heads);
  r /= p.heads;
  const int s = static_cast<int>(r % p.step_len);
  const int b = static_cast<int>(r / p.step_len);
  const float ls = p.lse_step[(static_cast<std::int64_t>(b) * p.heads + h) * p.step_len + s];
  const float l = p.lse[(static_cast<std::int64_t>(b) * p.heads + h) * p.acc_len + p.offset + s];
  const float w = (ls == -INFINITY) ? 0.f : expf(ls - l);
  const __nv_bfloat162 x = *reinterpret_cast<const __nv_bfloat162*>(p.step + b * p.s_bs + s * p.s_ss + h * p.s_hs + c);
  auto* o = reinterpret_cast<__nv_bfloat162*>(p.out + b * p.o_bs + (p.offset + s) * p.o_ss + h * p.o_hs + c);
  float2 acc = p.init ? make_float2(0.f, 0.f) : __bfloat1622float2(*o);
  const float2 xf = __bfloat1622float2(x);
  acc.x += w * xf.x;
  acc.y += w * xf.y;
  *o = __floats2bfloat162_rn(acc.x, acc.y);
}

// One thread per 16-byte vector (8 bf16) of the destination.
__global__ void a2a_kernel(A2aStep step, const uint4* src, uint4* dst, int A, int batch, int s,
                           int heads, int vec_per_head, std::int64_t n_vec) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n_vec) return;
  const int hp = heads / A;   // heads per peer
  const int half = s / 2;
  const int c = static_cast<int>(i % vec_per_head);
  std::int64_t r = i / vec_per_head;
  std::int64_t src_idx = 0;
  switch (step) {
    case A2aStep::PackBefore: {   // dst [j][b][tok][hh]
      const int hh = static_cast<int>(r % hp); r /= hp;
      const int tok = static_cast<int>(r % s); r /= s;
      const int b = static_cast<int>(r % batch);
      const int j = static_cast<int>(r / batch);
      src_idx = ((static_cast<std::int64_t>(b) * s + tok) * heads + j * hp + hh) * vec_per_head + c;
      break;
    }
    case A2aStep::UnpackBefore: {   // dst [b][tok of A*s][hh]
      const int hh = static_cast<int>(r % hp); r /= hp;
      const int tok = static_cast<int>(r % (static_cast<std::int64_t>(A) * s)); r /= (static_cast<std::int64_t>(A) * s);
      const int b = static_cast<int>(r);
      const int u = tok / half, w = tok % half;
      const int j = u < A ? u : 2 * A - 1 - u;
      const int local = (u < A ? 0 : half) + w;
      src_idx = (((static_cast<std::int64_t>(j) * batch + b) * s + local) * hp + hh) * vec_per_head + c;
      break;
    }
    case A2aStep::PackAfter: {   // dst [j][b][tok of s][hh]
      const int hh = static_cast<int>(r % hp); r /= hp;
      const int tok = static_cast<int>(r % s); r /= s;
      const int b = static_cast<int>(r % batch);
      const int j = static_cast<int>(r / batch);
      const int u = tok < half ? j : 2 * A - 1 - j;
      const int nat = u * half + tok % half;
      src_idx = ((static_cast<std::int64_t>(b) * A * s + nat) * hp + hh) * vec_per_head + c;
      break;
    }
    case A2aStep::UnpackAfter: {   // dst [b][tok][h]
      const int h = static_cast<int>(r % heads); r /= heads;
      const int tok = static_cast<int>(r % s); r /= s;
      const int b = static_cast<int>(r);
      const int j = h / hp, hh = h % hp;
      src_idx = (((static_cast<std::int64_t>(j) * batch + b) * s + tok) * hp + hh) * vec_per_head + c;
      break;
    }
  }
  dst[i] = src[src_idx];
}

__global__ void accumulate_kernel(RowsView dst, RowsView src, int rows, int width, bool init,
                                  std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int c = static_cast<int>(i % width);
  const std::int64_t r = (i / width) % rows;
  const std::int64_t b = i / (static_cast<std::int64_t>(width) * rows);
  bf16* d = static_cast<bf16*>(dst.data) + b * dst.batch_stride + r * dst.row_stride + c;
  const bf16* s = static_cast<const bf16*>(src.data) + b * src.batch_stride + r * src.row_stride + c;
  *d = __float2bfloat16((init ? 0.f : __bfloat162float(*d)) + __bfloat162float(*s));
}

void require(bool ok, const std::string& msg) {
  if (!ok) throw std::invalid_argument(msg);
}

}  // namespace

void lse_merge(float* lse_acc, const float* lse_step, int batch, int heads, int acc_len,
               int step_len, int offset, bool init, cudaStream_t stream) {
  require(lse_acc && lse_step, "lse_merge: null pointer");
  require(batch > 0 && heads > 0 && step_len >= 0 && offset >= 0 && offset + step_len <= acc_len,
          "lse_merge: need offset + step_len <= acc_len (offset " + std::to_string(offset) +
              ", step_len " + std::to_string(step_len) + ", acc_len " + std::to_string(acc_len) + ")");
  const std::int64_t n = static_cast<std::int64_t>(batch) * heads * step_len;
  if (n == 0) return;
  lse_merge_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(lse_acc, lse_step, batch * heads, acc_len,
                                                           step_len, offset, init);
  check_cuda(cudaGetLastError(), "lse_merge launch");
}

void out_correction(BhsdView out, BhsdView out_step, const float* lse, const float* lse_step,
                    int batch, int heads, int head_dim, int acc_len, int step_len, int offset,
                    bool init, cudaStream_t stream) {
  require(out.data && out_step.data && lse && lse_step, "out_correction: null pointer");
  require(head_dim > 0 && head_dim % 2 == 0, "out_correction: head_dim must be even");
  require(offset >= 0 && step_len >= 0 && offset + step_len <= acc_len,
          "out_correction: need offset + step_len <= acc_len");
  CorrParams p{static_cast<bf16*>(out.data), static_cast<const bf16*>(out_step.data), lse, lse_step,
               out.batch_stride, out.seq_stride, out.head_stride,
               out_step.batch_stride, out_step.seq_stride, out_step.head_stride,
               heads, head_dim, acc_len, step_len, offset, init};
  const std::int64_t n = static_cast<std::int64_t>(batch) * step_len * heads * (head_dim / 2);
  if (n == 0) return;
  out_correction_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(p, n);
  check_cuda(cudaGetLastError(), "out_correction launch");
}

void a2a_reorder(A2aStep step, const void* src, void* dst, int a2a_size, int batch, int local_seq,
                 int heads, int head_dim, cudaStream_t stream) {
  require(src && dst && src != dst, "a2a_reorder: src and dst must be distinct device buffers");
  require(a2a_size >= 1 && heads % a2a_size == 0,
          "a2a_reorder: heads (" + std::to_string(heads) + ") must be a multiple of the a2a size (" +
              std::to_string(a2a_size) + ")");
  require(local_seq % 2 == 0, "a2a_reorder: local sequence length must be even (two chunks)");
  require(head_dim % 8 == 0, "a2a_reorder: head_dim must be a multiple of 8");
  require(reinterpret_cast<std::uintptr_t>(src) % 16 == 0 && reinterpret_cast<std::uintptr_t>(dst) % 16 == 0,
          "a2a_reorder: buffers must be 16-byte aligned");
  const int vec = head_dim / 8;
  const std::int64_t n = static_cast<std::int64_t>(batch) * local_seq * heads * vec;
  if (n == 0) return;
  a2a_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(step, static_cast<const uint4*>(src),
                                                      static_cast<uint4*>(dst), a2a_size, batch,
                                                      local_seq, heads, vec, n);
  check_cuda(cudaGetLastError(), "a2a_reorder launch");
}

void kv_concat(void* kv, const void* k, std::size_t k_bytes, const void* v, std::size_t v_bytes,
               cudaStream_t stream) {
  require(kv && k && v, "kv_concat: null pointer");
  check_cuda(cudaMemcpyAsync(kv, k, k_bytes, cudaMemcpyDeviceToDevice, stream), "kv_concat K");
  check_cuda(cudaMemcpyAsync(static_cast<char*>(kv) + k_bytes, v, v_bytes, cudaMemcpyDeviceToDevice, stream),
             "kv_concat V");
}

void accumulate_rows(RowsView dst, RowsView src, int batch, int rows, int width, bool init,
                     cudaStream_t stream) {
  require(dst.data && src.data, "accumulate_rows: null pointer");
  require(batch >= 0 && rows >= 0 && width >= 0, "accumulate_rows: negative size");
  const std::int64_t n = static_cast<std::int64_t>(batch) * rows * width;
  if (n == 0) return;
  accumulate_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(dst, src, rows, width, init, n);
  check_cuda(cudaGetLastError(), "accumulate_rows launch");
}

}  // namespace hcpsim::kernels
