#include "engine/reference/dsa_indexer.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace hcpsim::reference {

template <typename T>
Tensor<T> indexer_keep(const Tensor<T>& qi, const Tensor<T>& ki, const Tensor<T>& w, std::int64_t q_pos0,
                       std::int64_t topk, bool causal) {
  if (qi.B != ki.B || qi.D != ki.D || ki.H != 1 || w.L != qi.L || w.H != qi.H || topk < 1)
    throw std::runtime_error("reference indexer: shapes do not match");
  Tensor<T> keep(qi.B, qi.L, 1, ki.L);
  std::vector<T> score(static_cast<std::size_t>(ki.L));
  std::vector<std::int64_t> order(static_cast<std::size_t>(ki.L));
  for (std::int64_t b = 0; b < qi.B; ++b)
    for (std::int64_t t = 0; t < qi.L; ++t) {
      const std::int64_t visible = causal ? std::min(ki.L, q_pos0 + t + 1) : ki.L;
      for (std::int64_t j = 0; j < visible; ++j) {
        T s = 0;
        for (std::int64_t h = 0; h < qi.H; ++h) {
          T x = 0;
          for (std::int64_t d = 0; d < qi.D; ++d) x += qi.at(b, t, h, d) * ki.at(b, j, 0, d);
          s += w.at(b, t, h, 0) * std::max(x, T(0));
        }
        score[static_cast<std::size_t>(j)] = s;
      }
      std::iota(order.begin(), order.begin() + visible, std::int64_t{0});
      const std::int64_t k = std::min(topk, visible);
      std::partial_sort(order.begin(), order.begin() + k, order.begin() + visible, [&](std::int64_t a, std::int64_t c) {
        const T sa = score[static_cast<std::size_t>(a)], sc = score[static_cast<std::size_t>(c)];
        return sa != sc ? sa > sc : a < c;
      });
      for (std::int64_t r = 0; r < k; ++r) keep.at(b, t, 0, order[static_cast<std::size_t>(r)]) = T(1);
    }
  return keep;
}

template Tensor<double> indexer_keep<double>(const Tensor<double>&, const Tensor<double>&, const Tensor<double>&,
                                             std::int64_t, std::int64_t, bool);
template Tensor<float> indexer_keep<float>(const Tensor<float>&, const Tensor<float>&, const Tensor<float>&,
                                           std::int64_t, std::int64_t, bool);

}  // namespace hcpsim::reference
