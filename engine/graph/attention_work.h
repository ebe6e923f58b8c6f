#pragma once
// The work of one attention kernel, in one place: the exact (q,k) pairs of a mask section and the
// FLOPs of a pass (docs/schedules.md "FLOPs"). Used by the schedule builders and by calibration.
#include <cstdint>

#include "engine/graph/task_graph.h"

namespace hcpsim {

// Exact (q,k) pairs of one kernel per head and batch element: top-left causal over equal lengths
// q(q+1)/2, bottom-right causal q(k-q) + q(q+1)/2, unmasked sections q*k.
double attention_pairs(MaskSection m, std::int64_t q_len, std::int64_t kv_len);

// A kernel's shape with its pairs filled in.
AttentionShape attention_shape(int batch, std::int64_t q_len, std::int64_t kv_len, int heads, int kv_heads,
                               int head_dim_qk, int head_dim_v, MaskSection section);

// FLOPs, 2 per multiply-add: forward 2*b*h*(d_qk + d_v)*pairs (QK^T and PV), backward
// 2*b*h*(3*d_qk + 2*d_v)*pairs (QK^T again, dV, dP, dQ, dK).
double attention_flops(const AttentionShape& a, Pass pass);

}  // namespace hcpsim
