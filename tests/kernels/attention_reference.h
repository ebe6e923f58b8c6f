#pragma once
// Double-precision CPU reference of masked (GQA) attention forward and backward, written from the
// definitions: S = scale * Q K^T, P = softmax(S + mask), O = P V, lse = log sum exp(S);
// dV = P^T dO, dP = dO V^T, dS = P * (dP - rowsum(dO * O)), dQ = scale dS K, dK = scale dS^T Q.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace hcpsim::test {

// Read-only strided [batch, seq, heads, dim] view of host floats.
struct HostView {
  const float* base = nullptr;
  std::int64_t bs = 0, ss = 0, hs = 0;
  double at(int b, int s, int h, int c) const { return base[b * bs + s * ss + h * hs + c]; }
};

inline HostView dense_host(const std::vector<float>& v, int seq, int heads, int dim, int row_offset = 0) {
  HostView h;
  h.hs = dim;
  h.ss = static_cast<std::int64_t>(heads) * dim;
  h.bs = seq * h.ss;
  h.base = v.data() + row_offset * h.ss;
  return h;
}

struct RefDims {
  int batch = 1, q_len = 0, kv_len = 0, heads = 1, kv_heads = 1, dim = 64;
  int mask = 0;   // 0 none, 1 causal top-left, 2 causal bottom-right
  double softmax_scale = 0;   // 0: 1/sqrt(dim), as the kernels' AttentionDims::softmax_scale
  double scale() const { return softmax_scale > 0 ? softmax_scale : 1.0 / std::sqrt(static_cast<double>(dim)); }
  bool visible(int q, int k) const {
    if (mask == 1) return k <= q;
    if (mask == 2) return k <= q + (kv_len - q_len);
    return true;
  }
};

// O row (dim values) and LSE of query row i of head h, batch b; O = 0, LSE = -inf when it sees nothing.
inline double ref_forward_row(const RefDims& d, HostView q, HostView k, HostView v, int b, int h, int i, double* o) {
  const int hk = h / (d.heads / d.kv_heads);
  std::vector<double> s(d.kv_len, -std::numeric_limits<double>::infinity());
  double mx = -std::numeric_limits<double>::infinity();
  for (int j = 0; j < d.kv_len; ++j) {
    if (!d.visible(i, j)) continue;
    double dot = 0;
    for (int c = 0; c < d.dim; ++c) dot += q.at(b, i, h, c) * k.at(b, j, hk, c);
    s[j] = dot * d.scale();
    mx = std::max(mx, s[j]);
  }
  for (int c = 0; c < d.dim; ++c) o[c] = 0;
  if (mx == -std::numeric_limits<double>::infinity()) return mx;
  double sum = 0;
  for (int j = 0; j < d.kv_len; ++j)
    if (d.visible(i, j)) sum += std::exp(s[j] - mx);
  for (int j = 0; j < d.kv_len; ++j) {
    if (!d.visible(i, j)) continue;
    const double p = std::exp(s[j] - mx) / sum;
    for (int c = 0; c < d.dim; ++c) o[c] += p * v.at(b, j, hk, c);
  }
  return mx + std::log(sum);
}

// o: dense [b, q, h, d]; lse: [b, h, q] (-inf for rows that see nothing, with o = 0).
inline void ref_forward(const RefDims& d, HostView q, HostView k, HostView v, std::vector<double>& o,
                        std::vector<double>& lse) {
  o.assign(static_cast<std::size_t>(d.batch) * d.q_len * d.heads * d.dim, 0.0);
  lse.assign(static_cast<std::size_t>(d.batch) * d.heads * d.q_len, -std::numeric_limits<double>::infinity());
  for (int b = 0; b < d.batch; ++b)
    for (int h = 0; h < d.heads; ++h)
      for (int i = 0; i < d.q_len; ++i)
        lse[(static_cast<std::size_t>(b) * d.heads + h) * d.q_len + i] =
            ref_forward_row(d, q, k, v, b, h, i, &o[((static_cast<std::size_t>(b) * d.q_len + i) * d.heads + h) * d.dim]);
}

// dq: dense [b, q, h, d]; dk, dv: dense [b, kv, kv_heads, d].
inline void ref_backward(const RefDims& d, HostView q, HostView k, HostView v, HostView dout,
                         std::vector<double>& dq, std::vector<double>& dk, std::vector<double>& dv) {
  std::vector<double> o, lse;
  ref_forward(d, q, k, v, o, lse);
  dq.assign(static_cast<std::size_t>(d.batch) * d.q_len * d.heads * d.dim, 0.0);
  dk.assign(static_cast<std::size_t>(d.batch) * d.kv_len * d.kv_heads * d.dim, 0.0);
  dv.assign(dk.size(), 0.0);
  const int group = d.heads / d.kv_heads;
  for (int b = 0; b < d.batch; ++b)
    for (int h = 0; h < d.heads; ++h)
      for (int i = 0; i < d.q_len; ++i) {
        const double l = lse[(static_cast<std::size_t>(b) * d.heads + h) * d.q_len + i];
        if (std::isinf(l)) continue;
        const int hk = h / group;
        const double* orow = &o[((static_cast<std::size_t>(b) * d.q_len + i) * d.heads + h) * d.dim];
        double delta = 0;
        for (int c = 0; c < d.dim; ++c) delta += dout.at(b, i, h, c) * orow[c];
        double* dqrow = &dq[((static_cast<std::size_t>(b) * d.q_len + i) * d.heads + h) * d.dim];
        for (int j = 0; j < d.kv_len; ++j) {
          if (!d.visible(i, j)) continue;
          double dot = 0, dp = 0;
          for (int c = 0; c < d.dim; ++c) {
            dot += q.at(b, i, h, c) * k.at(b, j, hk, c);
            dp += dout.at(b, i, h, c) * v.at(b, j, hk, c);
          }
          const double p = std::exp(dot * d.scale() - l);
          const double ds = p * (dp - delta);
          double* dkrow = &dk[((static_cast<std::size_t>(b) * d.kv_len + j) * d.kv_heads + hk) * d.dim];
          double* dvrow = &dv[((static_cast<std::size_t>(b) * d.kv_len + j) * d.kv_heads + hk) * d.dim];
          for (int c = 0; c < d.dim; ++c) {
            dqrow[c] += d.scale() * ds * k.at(b, j, hk, c);
            dkrow[c] += d.scale() * ds * q.at(b, i, h, c);
            dvrow[c] += p * dout.at(b, i, h, c);
          }
        }
      }
}

}  // namespace hcpsim::test
