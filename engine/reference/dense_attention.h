#pragma once
// Dense single-device attention and its analytic backward, written independently of the chunk
// kernels (full probability matrix, softmax by rows, D = rowsum(P o dP)). The ground truth of
// the reference check. Causal = top-left (key j visible from query i when j <= i).
#include "engine/reference/tensor.h"

namespace hcpsim::reference {

struct DenseResult {
  Tensor<double> out, dq, dk, dv;   // out: [b][S][h][d_v]; dq: q's shape; dk, dv: k's / v's shape
};

// q [b][S][h][d], k/v [b][S][g][d], dout [b][S][h][d]; h a multiple of g.
// keep (DSA): [b][S][1][S], key j takes part in query i only where keep(b, i, 0, j) != 0.
DenseResult dense_attention(const Tensor<double>& q, const Tensor<double>& k, const Tensor<double>& v,
                            const Tensor<double>& dout, bool causal, const Tensor<double>* keep = nullptr);

}  // namespace hcpsim::reference
