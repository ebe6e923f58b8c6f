#pragma once
// Attention kernels of the reference executor: one forward chunk with log-sum-exp, one backward
// chunk from the final LSE (FlashAttention accounting), and the ring merges of docs/schedules.md. Scale 1/sqrt(d_qk).
// GQA: query head h reads KV head h / (H / G).
#include "engine/reference/tensor.h"

namespace hcpsim::reference {

// Rows [q_off, q_off+q_len) of q against rows [kv_off, kv_off+kv_len) of k/v. causal: key j may be
// seen by query i when j <= i + (kv_len - q_len) (bottom-right; equals top-left for equal lengths).
struct Tile {
  std::int64_t q_off = 0, q_len = 0, kv_off = 0, kv_len = 0;
  bool causal = false;
};

// keep (DSA sparse attention): [B][Lq][1][Lk], a key j of query row i takes part only when
// keep(b, i, 0, j) != 0 (on top of the causal rule).
// k and v may be the same tensor (combined KV: K in columns [0, d_qk), V after) — pass v_col0.
// out: [B][Lq][H][d_v] zero outside the tile rows; lse: [B][Lq][H][1], -inf outside.
template <typename T>
void attention_forward(const Tensor<T>& q, const Tensor<T>& k, const Tensor<T>& v, std::int64_t v_col0,
                       std::int64_t d_v, const Tile& t, Tensor<T>& out, Tensor<T>& lse,
                       const Tensor<T>* keep = nullptr);

// Partial gradients of one tile. dq: q's shape (zero outside tile rows); dk, dv: [B][Lk][G][d].
template <typename T>
void attention_backward(const Tensor<T>& q, const Tensor<T>& k, const Tensor<T>& v, std::int64_t v_col0,
                        std::int64_t d_v, const Tensor<T>& out, const Tensor<T>& dout, const Tensor<T>& lse,
                        const Tile& t, Tensor<T>& dq, Tensor<T>& dk, Tensor<T>& dv,
                        const Tensor<T>* keep = nullptr);

// log(exp(a) + exp(b)) elementwise, -inf aware.
template <typename T>
T log_add_exp(T a, T b);

}  // namespace hcpsim::reference
