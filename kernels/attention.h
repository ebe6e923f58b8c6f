#pragma once
// Attention chunk kernels (bf16 in, fp32 accumulate) as TE's context-parallel schedules call them:
// forward returns O and the per-row log-sum-exp, backward returns dQ, dK, dV. Tensors are
// [batch, seq, heads, head_dim] with element strides, so the sliced halves of the lower/upper ring
// sections (docs/schedules.md) are passed as views without a copy. Host functions only enqueue work on
// `stream`; they throw std::invalid_argument for unsupported shapes and std::runtime_error for CUDA
// errors. Requires compute capability >= 8.0.
#include <cstdint>
#include <cstddef>

#include <cuda_runtime_api.h>

namespace hcpsim::kernels {

// Mask of one attention chunk, positions counted inside the chunk (q in [0,q_len), k in [0,kv_len)).
enum class MaskKind : std::uint8_t {
  None,               // every (q,k): lower / upper / full sections
  CausalTopLeft,      // k <= q: the diagonal section and the a2a "causal" kernel
  CausalBottomRight   // k <= q + (kv_len - q_len): all_gather's Q chunk x KV prefix
};

// A bf16 tensor [batch, seq, heads, dim]; the dim stride is 1; strides in elements.
struct BhsdView {
  void* data = nullptr;
  std::int64_t batch_stride = 0;
  std::int64_t seq_stride = 0;
  std::int64_t head_stride = 0;
};

// A dense contiguous [batch, seq, heads, dim] view.
BhsdView dense_view(void* data, std::int64_t seq, int heads, int dim);

struct AttentionDims {
  int batch = 1;
  int q_len = 0;
  int kv_len = 0;
  int heads = 0;      // query heads; kv head of query head h is h / (heads / kv_heads) (GQA)
  int kv_heads = 0;
  int head_dim = 0;   // 64 or 128 (same for QK and V)
  MaskKind mask = MaskKind::None;
  float softmax_scale = 0;   // 0 means 1/sqrt(head_dim)
  // Debug/reference path: gather MMA fragments element by element instead of ldmatrix (slower;
  // the GPU tests run both, so a wrong ldmatrix lane mapping shows up as a difference).
  bool elementwise_fragments = false;
};

// Throws std::invalid_argument naming the field when dims or views cannot be run.
void check_attention_args(const AttentionDims& d, const BhsdView* views, int view_count);

// O = softmax(scale*Q K^T + mask) V and lse[b, h, q] = log sum_k exp(scale*q.k) (natural log,
// fp32, dense [batch, heads, q_len]); rows with no visible key get O = 0 and lse = -inf.
void attention_forward(const AttentionDims& d, BhsdView q, BhsdView k, BhsdView v, BhsdView o,
                       float* lse, cudaStream_t stream);

// fp32 workspace bytes attention_backward needs (dQ accumulator + rowsum(dO*O)).
std::size_t attention_backward_workspace_bytes(const AttentionDims& d);

// Gradients of attention_forward: dq (same shape as q), dk/dv (shape of k/v, summed over the query
// heads of each GQA group). `lse` is the forward's. `workspace` holds
// attention_backward_workspace_bytes(d) bytes of device memory.
void attention_backward(const AttentionDims& d, BhsdView q, BhsdView k, BhsdView v, BhsdView o,
                        BhsdView dout, const float* lse, BhsdView dq, BhsdView dk, BhsdView dv,
                        void* workspace, cudaStream_t stream);

}  // namespace hcpsim::kernels
