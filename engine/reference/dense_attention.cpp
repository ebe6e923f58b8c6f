#include "engine/reference/dense_attention.h"

#include <cmath>
#include <stdexcept>

namespace hcpsim::reference {

DenseResult dense_attention(const Tensor<double>& q, const Tensor<double>& k, const Tensor<double>& v,
                            const Tensor<double>& dout, bool causal, const Tensor<double>* keep) {
  const std::int64_t B = q.B, S = q.L, H = q.H, G = k.H, D = q.D, Dv = v.D;
  if (G == 0 || H % G != 0) throw std::invalid_argument("dense_attention: heads not a multiple of KV heads");
  DenseResult r{Tensor<double>(B, S, H, Dv), Tensor<double>(B, S, H, D), Tensor<double>(B, S, G, D),
                Tensor<double>(B, S, G, Dv)};
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  std::vector<double> P(static_cast<std::size_t>(S * S)), dP(static_cast<std::size_t>(S * S));
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t h = 0; h < H; ++h) {
      const std::int64_t g = h * G / H;   // contiguous groups of H/G query heads share a KV head
      for (std::int64_t i = 0; i < S; ++i) {
        double mx = -1e300;
        for (std::int64_t j = 0; j < S; ++j) {
          double x = 0;
          for (std::int64_t d = 0; d < D; ++d) x += q.at(b, i, h, d) * k.at(b, j, g, d);
          x *= scale;
          const bool visible = (!causal || j <= i) && (keep == nullptr || keep->at(b, i, 0, j) != 0.0);
          P[static_cast<std::size_t>(i * S + j)] = visible ? x : -1e300;
          if (visible && x > mx) mx = x;
        }
        double sum = 0;
        for (std::int64_t j = 0; j < S; ++j) {
          double& p = P[static_cast<std::size_t>(i * S + j)];
          p = p > -1e299 ? std::exp(p - mx) : 0.0;
          sum += p;
        }
        for (std::int64_t j = 0; j < S; ++j) P[static_cast<std::size_t>(i * S + j)] /= sum;
        for (std::int64_t j = 0; j < S; ++j)
          for (std::int64_t d = 0; d < Dv; ++d) r.out.at(b, i, h, d) += P[static_cast<std::size_t>(i * S + j)] * v.at(b, j, g, d);
      }
      // backward: dV = P^T dO ; dP = dO V^T ; dS = P o (dP - rowsum(P o dP)) ; dQ = s dS K ; dK = s dS^T Q
      for (std::int64_t i = 0; i < S; ++i) {
        double rs = 0;
        for (std::int64_t j = 0; j < S; ++j) {
          double x = 0;
          for (std::int64_t d = 0; d < Dv; ++d) x += dout.at(b, i, h, d) * v.at(b, j, g, d);
          dP[static_cast<std::size_t>(i * S + j)] = x;
          rs += x * P[static_cast<std::size_t>(i * S + j)];
        }
        for (std::int64_t j = 0; j < S; ++j) {
          const double p = P[static_cast<std::size_t>(i * S + j)];
          if (p == 0) continue;
          const double ds = p * (dP[static_cast<std::size_t>(i * S + j)] - rs);
          for (std::int64_t d = 0; d < Dv; ++d) r.dv.at(b, j, g, d) += p * dout.at(b, i, h, d);
          for (std::int64_t d = 0; d < D; ++d) {
            r.dq.at(b, i, h, d) += scale * ds * k.at(b, j, g, d);
            r.dk.at(b, j, g, d) += scale * ds * q.at(b, i, h, d);
          }
        }
      }
    }
  return r;
}

}  // namespace hcpsim::reference
