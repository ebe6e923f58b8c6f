#pragma once
// Dense host tensor [B][L][H][D] used by the reference executor (B = batch, or slots x batch in
// communication staging buffers; L tokens; H heads; D head dim). Row-major, D fastest.
#include <cstdint>
#include <vector>

namespace hcpsim::reference {

template <typename T>
struct Tensor {
  std::int64_t B = 0, L = 0, H = 0, D = 0;
  std::vector<T> v;

  Tensor() = default;
  // Zero-filled tensor of the given shape.
  Tensor(std::int64_t b, std::int64_t l, std::int64_t h, std::int64_t d, T fill = T(0))
      : B(b), L(l), H(h), D(d), v(static_cast<std::size_t>(b * l * h * d), fill) {}

  std::size_t index(std::int64_t b, std::int64_t l, std::int64_t h, std::int64_t d) const {
    return static_cast<std::size_t>(((b * L + l) * H + h) * D + d);
  }
  T& at(std::int64_t b, std::int64_t l, std::int64_t h, std::int64_t d) { return v[index(b, l, h, d)]; }
  const T& at(std::int64_t b, std::int64_t l, std::int64_t h, std::int64_t d) const { return v[index(b, l, h, d)]; }
  // Pointer to the D values of one (b, l, h) row.
  T* row(std::int64_t b, std::int64_t l, std::int64_t h) { return v.data() + index(b, l, h, 0); }
  const T* row(std::int64_t b, std::int64_t l, std::int64_t h) const { return v.data() + index(b, l, h, 0); }
  bool same_shape(const Tensor& o) const { return B == o.B && L == o.L && H == o.H && D == o.D; }
};

}  // namespace hcpsim::reference
