// The memory-bound kernels of one transformer layer outside its GEMMs and core attention, priced by
// the HBM bytes each reads and writes (docs/metrics.md section 11). Two implementations:
//
//   fused    one kernel per op, as Transformer Engine / Megatron-Core run them: RMSNorm, RoPE of
//            Q and K, SwiGLU, residual add (bias-dropout-add without bias or dropout);
//   unfused  PyTorch eager HuggingFace LLaMA: one kernel per tensor operation, RMSNorm computed in
//            fp32 (cast, square, mean, scale, cast back, weight), RoPE as q*cos + rotate_half(q)*sin
//            (negate, concatenate, two products, sum), the Q/K/V head-major copies, SiLU then a
//            product, and autograd's backward of each.
//
// Per GPU and micro-batch: `n` = the tokens a norm or residual add sees (tokens / tp with sequence
// parallelism), `m` = the rank's tokens, `h` hidden, `q`, `k` = the query and KV columns of the
// rank (/ tp), `F` = ffn / tp, `e` = bytes per element of the activations.
#include <algorithm>

#include "engine/step/layer_elementwise.h"

namespace hcpsim::step {
namespace {

constexpr double kFp32 = 4.0;

struct Dims {
  double n = 0, m = 0, h = 0, q = 0, k = 0, f = 0, e = 2;
};

Dims dims_of(const Scenario& s) {
  Dims d;
  const double tp = std::max(1, s.tp());
  d.m = static_cast<double>(s.train.micro_batch_size) * static_cast<double>(s.model.seq_length) / std::max(1, s.cp());
  d.n = s.model.sequence_parallel ? d.m / tp : d.m;
  d.h = s.model.hidden_size;
  const int g = s.model.num_query_groups > 0 ? s.model.num_query_groups : s.model.num_attention_heads;
  d.q = static_cast<double>(s.model.num_attention_heads) * s.head_dim() / tp;
  d.k = static_cast<double>(g) * s.head_dim() / tp;
  d.f = s.model.ffn_hidden_size / tp;
  d.e = bytes_per_element(s.model.params_dtype);
  return d;
}

void add(std::vector<Kernel>& ks, const char* label, double bytes) { ks.push_back({TaskKind::Copy, 0, bytes, label}); }

void fused(const Dims& d, StepWork& w) {
  auto& f = w.layer_elementwise_forward;
  auto& b = w.layer_elementwise_backward;
  const double e = d.e, nh = d.n * d.h;
  // Forward in layer order: norm, RoPE, residual add, norm, SwiGLU, residual add.
  add(f, "rmsnorm", 2 * e * nh);                          // read x, write y
  add(f, "rope", 2 * e * d.m * (d.q + d.k));              // Q and K in place
  add(f, "residual_add", 3 * e * nh);                     // read two, write one
  add(f, "rmsnorm", 2 * e * nh);
  add(f, "swiglu", 3 * e * d.m * d.f);                    // read gate and up, write their product
  add(f, "residual_add", 3 * e * nh);
  // Backward in reverse: the residual stream's two gradients summed at each branch point.
  add(b, "residual_grad_add", 3 * e * nh);
  add(b, "swiglu_bwd", 5 * e * d.m * d.f);                // read gate, up, dy; write dgate, dup
  add(b, "rmsnorm_bwd", 3 * e * nh);                      // read x, dy; write dx
  add(b, "residual_grad_add", 3 * e * nh);
  add(b, "rope_bwd", 2 * e * d.m * (d.q + d.k));
  add(b, "rmsnorm_bwd", 3 * e * nh);
}

// HuggingFace LlamaRMSNorm in eager PyTorch: the activations cast to fp32, squared, averaged,
// scaled by the reciprocal root, cast back and multiplied by the weight; backward through each.
void rmsnorm_unfused(const Dims& d, std::vector<Kernel>& f, std::vector<Kernel>& b) {
  const double e = d.e, nh = d.n * d.h;
  add(f, "rmsnorm_to_fp32", (e + kFp32) * nh);
  add(f, "rmsnorm_square", 2 * kFp32 * nh);
  add(f, "rmsnorm_mean", kFp32 * nh);
  add(f, "rmsnorm_scale", 2 * kFp32 * nh);
  add(f, "rmsnorm_to_input_dtype", (kFp32 + e) * nh);
  add(f, "rmsnorm_weight", 2 * e * nh);
  add(b, "rmsnorm_weight_bwd", 3 * e * nh);                // dy * weight
  add(b, "rmsnorm_weight_grad", 4 * e * nh);               // dy * y, then the sum over tokens
  add(b, "rmsnorm_to_input_dtype_bwd", (e + kFp32) * nh);
  add(b, "rmsnorm_scale_bwd", 3 * kFp32 * nh);             // dy * rsqrt
  add(b, "rmsnorm_rsqrt_grad", 4 * kFp32 * nh);            // dy * x, then the sum over the row
  add(b, "rmsnorm_square_bwd", 3 * kFp32 * nh);            // 2 x * d(x^2)
  add(b, "rmsnorm_grad_sum", 3 * kFp32 * nh);              // the two paths into x added
  add(b, "rmsnorm_to_fp32_bwd", (kFp32 + e) * nh);
}

// HuggingFace apply_rotary_pos_emb on one tensor of `cols` columns per token:
// x*cos + cat(-x2, x1)*sin, and autograd's backward.
void rope_unfused(const Dims& d, double cols, std::vector<Kernel>& f, std::vector<Kernel>& b) {
  const double e = d.e, x = d.m * cols;
  add(f, "rope_neg", e * x);                               // half the columns, read and written
  add(f, "rope_cat", 2 * e * x);
  add(f, "rope_mul_cos", 2 * e * x);
  add(f, "rope_mul_sin", 2 * e * x);
  add(f, "rope_add", 3 * e * x);
  add(b, "rope_mul_cos_bwd", 2 * e * x);
  add(b, "rope_mul_sin_bwd", 2 * e * x);
  add(b, "rope_neg_bwd", e * x);
  add(b, "rope_slice_bwd", 2 * e * x);                     // zero-filled full-width gradient of x2
  add(b, "rope_slice_bwd", 2 * e * x);                     // and of x1
  add(b, "rope_grad_sum", 3 * e * x);                      // the three gradients of x added
  add(b, "rope_grad_sum", 3 * e * x);
}

// Backward kernels are listed next to the forward op they differentiate; the step runs them one
// after the other, so only their sum and count matter, not the order.
void unfused(const Dims& d, StepWork& w) {
  auto& f = w.layer_elementwise_forward;
  auto& b = w.layer_elementwise_backward;
  const double e = d.e, nh = d.n * d.h, mf = d.m * d.f;
  rmsnorm_unfused(d, f, b);
  rope_unfused(d, d.q, f, b);
  rope_unfused(d, d.k, f, b);
  add(f, "qkv_head_major_copy", 2 * e * d.m * (d.q + 2 * d.k));   // [b, s, heads, d] -> [b, heads, s, d]
  add(b, "qkv_head_major_copy_bwd", 2 * e * d.m * (d.q + 2 * d.k));
  add(f, "attn_out_token_major_copy", 2 * e * d.m * d.q);         // back to [b, s, heads * d]
  add(b, "attn_out_token_major_copy_bwd", 2 * e * d.m * d.q);
  add(f, "residual_add", 3 * e * nh);
  add(b, "residual_grad_add", 3 * e * nh);
  rmsnorm_unfused(d, f, b);
  add(f, "silu", 2 * e * mf);
  add(f, "swiglu_mul", 3 * e * mf);
  add(b, "swiglu_mul_bwd", 3 * e * mf);                    // d(silu) = dy * up
  add(b, "swiglu_mul_bwd", 3 * e * mf);                    // d(up) = dy * silu
  add(b, "silu_bwd", 3 * e * mf);
  add(f, "residual_add", 3 * e * nh);
  add(b, "residual_grad_add", 3 * e * nh);
}

}  // namespace

void add_layer_elementwise(const Scenario& s, StepWork& w) {
  w.layer_elementwise_forward.clear();
  w.layer_elementwise_backward.clear();
  if (s.model.ffn_hidden_size <= 0 || s.model.hidden_size <= 0) return;
  switch (s.model.elementwise_ops) {
    case ElementwiseOps::None: return;
    case ElementwiseOps::Fused: fused(dims_of(s), w); return;
    case ElementwiseOps::Unfused: unfused(dims_of(s), w); return;
  }
}

}  // namespace hcpsim::step
