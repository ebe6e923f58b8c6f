#pragma once
// Rows of the double-precision attention reference (attention_reference.h, whose ref_forward_row
// gives a forward row), for checking long sequences on sampled rows: a forward or dQ row costs
// kv_len x dim, a dK/dV row q_len x dim per query head, so 8K-token chunks are checked in seconds instead of the dense reference's hours.
// The dK/dV rows take each query row's LSE and delta = rowsum(dO * O) as inputs (the kernel's own,
// once the sampled rows of both have been checked against the forward rows).
#include <cmath>
#include <limits>
#include <vector>

#include "attention_reference.h"

namespace hcpsim::test {

// dQ row of query row i, head h, from that row's reference O row and LSE.
inline void ref_dq_row(const RefDims& d, HostView q, HostView k, HostView v, HostView dout, int b, int h, int i,
                       const double* o, double lse, double* dq) {
  const int hk = h / (d.heads / d.kv_heads);
  for (int c = 0; c < d.dim; ++c) dq[c] = 0;
  if (std::isinf(lse)) return;
  double delta = 0;
  for (int c = 0; c < d.dim; ++c) delta += dout.at(b, i, h, c) * o[c];
  for (int j = 0; j < d.kv_len; ++j) {
    if (!d.visible(i, j)) continue;
    double dot = 0, dp = 0;
    for (int c = 0; c < d.dim; ++c) {
      dot += q.at(b, i, h, c) * k.at(b, j, hk, c);
      dp += dout.at(b, i, h, c) * v.at(b, j, hk, c);
    }
    const double ds = std::exp(dot * d.scale() - lse) * (dp - delta);
    for (int c = 0; c < d.dim; ++c) dq[c] += d.scale() * ds * k.at(b, j, hk, c);
  }
}

// dK and dV rows of key j of KV head hk (summed over its GQA group), given every query row's LSE
// and delta as [b, h, q] arrays.
inline void ref_dkv_row(const RefDims& d, HostView q, HostView k, HostView v, HostView dout, int b, int hk, int j,
                        const std::vector<double>& lse, const std::vector<double>& delta, double* dk, double* dv) {
  const int group = d.heads / d.kv_heads;
  for (int c = 0; c < d.dim; ++c) dk[c] = dv[c] = 0;
  for (int h = hk * group; h < (hk + 1) * group; ++h)
    for (int i = 0; i < d.q_len; ++i) {
      const std::size_t r = (static_cast<std::size_t>(b) * d.heads + h) * d.q_len + i;
      if (!d.visible(i, j) || std::isinf(lse[r])) continue;
      double dot = 0, dp = 0;
      for (int c = 0; c < d.dim; ++c) {
        dot += q.at(b, i, h, c) * k.at(b, j, hk, c);
        dp += dout.at(b, i, h, c) * v.at(b, j, hk, c);
      }
      const double p = std::exp(dot * d.scale() - lse[r]);
      const double ds = p * (dp - delta[r]);
      for (int c = 0; c < d.dim; ++c) {
        dk[c] += d.scale() * ds * q.at(b, i, h, c);
        dv[c] += p * dout.at(b, i, h, c);
      }
    }
}

}  // namespace hcpsim::test
