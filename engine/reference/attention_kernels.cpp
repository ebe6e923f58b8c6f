#include "engine/reference/attention_kernels.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace hcpsim::reference {

namespace {

template <typename T>
T dot(const T* a, const T* b, std::int64_t n) {
  T s = 0;
  for (std::int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

void check_tile(const Tile& t, std::int64_t lq, std::int64_t lk) {
  if (t.q_off < 0 || t.q_len < 0 || t.q_off + t.q_len > lq || t.kv_off < 0 || t.kv_len < 0 || t.kv_off + t.kv_len > lk)
    throw std::runtime_error("reference attention: tile rows out of range");
}

// Highest key index (exclusive, tile-relative) query i may see.
inline std::int64_t key_end(const Tile& t, std::int64_t i) {
  if (!t.causal) return t.kv_len;
  const std::int64_t e = i + (t.kv_len - t.q_len) + 1;
  return e < 0 ? 0 : (e > t.kv_len ? t.kv_len : e);
}

}  // namespace

template <typename T>
T log_add_exp(T a, T b) {
  const T ninf = -std::numeric_limits<T>::infinity();
  if (a == ninf) return b;
  if (b == ninf) return a;
  const T mx = a > b ? a : b, mn = a > b ? b : a;
  return mx + std::log1p(std::exp(mn - mx));
}

template <typename T>
void attention_forward(const Tensor<T>& q, const Tensor<T>& k, const Tensor<T>& v, std::int64_t v_col0,
                       std::int64_t d_v, const Tile& t, Tensor<T>& out, Tensor<T>& lse, const Tensor<T>* keep) {
  check_tile(t, q.L, k.L);
  const std::int64_t H = q.H, G = k.H, dqk = q.D;
  if (G == 0 || H % G != 0) throw std::runtime_error("reference attention: query heads not a multiple of KV heads");
  const T scale = T(1) / std::sqrt(static_cast<T>(dqk));
  out = Tensor<T>(q.B, q.L, H, d_v);
  lse = Tensor<T>(q.B, q.L, H, 1, -std::numeric_limits<T>::infinity());
  std::vector<T> s(static_cast<std::size_t>(t.kv_len));
  for (std::int64_t b = 0; b < q.B; ++b)
    for (std::int64_t h = 0; h < H; ++h) {
      const std::int64_t hk = h / (H / G);
      for (std::int64_t i = 0; i < t.q_len; ++i) {
        const std::int64_t qi = t.q_off + i, ke = key_end(t, i);
        if (ke == 0) continue;
        T mx = -std::numeric_limits<T>::infinity();
        for (std::int64_t j = 0; j < ke; ++j) {
          if (keep != nullptr && keep->at(b, qi, 0, t.kv_off + j) == T(0)) {
            s[static_cast<std::size_t>(j)] = -std::numeric_limits<T>::infinity();
            continue;
          }
          s[static_cast<std::size_t>(j)] = scale * dot(q.row(b, qi, h), k.row(b, t.kv_off + j, hk), dqk);
          if (s[static_cast<std::size_t>(j)] > mx) mx = s[static_cast<std::size_t>(j)];
        }
        if (mx == -std::numeric_limits<T>::infinity()) continue;   // every key masked out
        T sum = 0;
        for (std::int64_t j = 0; j < ke; ++j) sum += std::exp(s[static_cast<std::size_t>(j)] - mx);
        const T l = mx + std::log(sum);
        lse.at(b, qi, h, 0) = l;
        T* o = out.row(b, qi, h);
        for (std::int64_t j = 0; j < ke; ++j) {
          const T p = std::exp(s[static_cast<std::size_t>(j)] - l);
          const T* vr = v.row(b, t.kv_off + j, hk) + v_col0;
          for (std::int64_t d = 0; d < d_v; ++d) o[d] += p * vr[d];
        }
      }
    }
}

template <typename T>
void attention_backward(const Tensor<T>& q, const Tensor<T>& k, const Tensor<T>& v, std::int64_t v_col0,
                        std::int64_t d_v, const Tensor<T>& out, const Tensor<T>& dout, const Tensor<T>& lse,
                        const Tile& t, Tensor<T>& dq, Tensor<T>& dk, Tensor<T>& dv, const Tensor<T>* keep) {
  check_tile(t, q.L, k.L);
  const std::int64_t H = q.H, G = k.H, dqk = q.D;
  if (G == 0 || H % G != 0) throw std::runtime_error("reference attention: query heads not a multiple of KV heads");
  const T scale = T(1) / std::sqrt(static_cast<T>(dqk));
  dq = Tensor<T>(q.B, q.L, H, dqk);
  dk = Tensor<T>(k.B, k.L, G, dqk);
  dv = Tensor<T>(k.B, k.L, G, d_v);
  for (std::int64_t b = 0; b < q.B; ++b)
    for (std::int64_t h = 0; h < H; ++h) {
      const std::int64_t hk = h / (H / G);
      for (std::int64_t i = 0; i < t.q_len; ++i) {
        const std::int64_t qi = t.q_off + i, ke = key_end(t, i);
        const T* qr = q.row(b, qi, h);
        const T* dor = dout.row(b, qi, h);
        const T Di = dot(dor, out.row(b, qi, h), d_v);
        const T l = lse.at(b, qi, h, 0);
        T* dqr = dq.row(b, qi, h);
        for (std::int64_t j = 0; j < ke; ++j) {
          const std::int64_t kj = t.kv_off + j;
          if (keep != nullptr && keep->at(b, qi, 0, kj) == T(0)) continue;
          const T* kr = k.row(b, kj, hk);
          const T* vr = v.row(b, kj, hk) + v_col0;
          const T p = std::exp(scale * dot(qr, kr, dqk) - l);
          T* dvr = dv.row(b, kj, hk);
          for (std::int64_t d = 0; d < d_v; ++d) dvr[d] += p * dor[d];
          const T ds = p * (dot(dor, vr, d_v) - Di);
          T* dkr = dk.row(b, kj, hk);
          for (std::int64_t d = 0; d < dqk; ++d) {
            dqr[d] += scale * ds * kr[d];
            dkr[d] += scale * ds * qr[d];
          }
        }
      }
    }
}

template double log_add_exp<double>(double, double);
template float log_add_exp<float>(float, float);
template void attention_forward<double>(const Tensor<double>&, const Tensor<double>&, const Tensor<double>&,
                                        std::int64_t, std::int64_t, const Tile&, Tensor<double>&, Tensor<double>&,
                                        const Tensor<double>*);
template void attention_forward<float>(const Tensor<float>&, const Tensor<float>&, const Tensor<float>&,
                                       std::int64_t, std::int64_t, const Tile&, Tensor<float>&, Tensor<float>&,
                                       const Tensor<float>*);
template void attention_backward<double>(const Tensor<double>&, const Tensor<double>&, const Tensor<double>&,
                                         std::int64_t, std::int64_t, const Tensor<double>&, const Tensor<double>&,
                                         const Tensor<double>&, const Tile&, Tensor<double>&, Tensor<double>&,
                                         Tensor<double>&, const Tensor<double>*);
template void attention_backward<float>(const Tensor<float>&, const Tensor<float>&, const Tensor<float>&,
                                        std::int64_t, std::int64_t, const Tensor<float>&, const Tensor<float>&,
                                        const Tensor<float>&, const Tile&, Tensor<float>&, Tensor<float>&,
                                        Tensor<float>&, const Tensor<float>*);

}  // namespace hcpsim::reference
