#pragma once
// Context-parallel glue kernels (docs/schedules.md): LSE merge, output correction, a2a pack/unpack with
// the dual-chunk reorder, KV concat and dKV accumulation. bf16 data, fp32 math. Host functions
// enqueue on `stream` and throw std::invalid_argument on bad sizes, std::runtime_error on CUDA errors.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels/attention.h"

namespace hcpsim::kernels {

// lse_acc[b, h, offset + i] <- log(exp(lse_acc) + exp(lse_step[b, h, i])) for i < step_len, or a
// copy when `init`. lse_acc is dense [batch, heads, acc_len], lse_step [batch, heads, step_len];
// offset + step_len <= acc_len (upper ring steps merge into the second half: offset = acc_len/2).
void lse_merge(float* lse_acc, const float* lse_step, int batch, int heads, int acc_len,
               int step_len, int offset, bool init, cudaStream_t stream);

// out[b, offset + i, h, :] <- (init ? 0 : out) + exp(lse_step[b,h,i] - lse[b,h,offset+i]) *
// out_step[b, i, h, :], for i < step_len; lse is the final merged [batch, heads, acc_len].
void out_correction(BhsdView out, BhsdView out_step, const float* lse, const float* lse_step,
                    int batch, int heads, int head_dim, int acc_len, int step_len, int offset,
                    bool init, cudaStream_t stream);

// Direction-specific layouts of one a2a of a2a-group size A over a dense tensor [b, s, h, d]:
//  before attention: pack  src [b, s, h, d]       -> dst [A][b, s, h/A, d]  (head group j to peer j)
//                    unpack src [A][b, s, h/A, d] -> dst [b, A*s, h/A, d]  natural token order:
//                    output half u < A comes from peer u's early half, u >= A from peer 2A-1-u's
//                    late half (the a2a+p2p chunk-layout invariant of docs/schedules.md);
//  after attention:  pack  src [b, A*s, h/A, d]   -> dst [A][b, s, h/A, d] (halves j, 2A-1-j to j)
//                    unpack src [A][b, s, h/A, d] -> dst [b, s, h, d]       (peer j = head group j)
// `s` is the local (pre-a2a) sequence length, even; `d` a multiple of 8; h a multiple of A.
enum class A2aStep : std::uint8_t { PackBefore, UnpackBefore, PackAfter, UnpackAfter };
void a2a_reorder(A2aStep step, const void* src, void* dst, int a2a_size, int batch, int local_seq,
                 int heads, int head_dim, cudaStream_t stream);

// kv = concat(flatten(K), flatten(V)) (the KV_0 copy of the ring, docs/schedules.md).
void kv_concat(void* kv, const void* k, std::size_t k_bytes, const void* v, std::size_t v_bytes,
               cudaStream_t stream);

// A bf16 matrix block: `rows` rows of `width` elements, per batch; strides in elements.
struct RowsView {
  void* data = nullptr;
  std::int64_t batch_stride = 0;
  std::int64_t row_stride = 0;
};

// dst[b, r, :] <- (init ? 0 : dst[b, r, :]) + src[b, r, :] for r < rows, c < width: dKV
// accumulation into the travelling buffer and dQ half accumulation of the ring backward.
void accumulate_rows(RowsView dst, RowsView src, int batch, int rows, int width, bool init,
                     cudaStream_t stream);

}  // namespace hcpsim::kernels
