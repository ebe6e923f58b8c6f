#include "kernels/bf16_tile_kernels.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace hcpsim::kernels {

using reference::Tensor;
using reference::Tile;

std::uint16_t to_bf16_bits(double x) {
  const float f = static_cast<float>(x);
  if (std::isnan(f)) return 0x7fc0;
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}

double from_bf16_bits(std::uint16_t b) {
  const std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

std::vector<std::uint16_t> pack_bf16_rows(const Tensor<double>& x, std::int64_t row0, std::int64_t rows,
                                          std::int64_t col0, std::int64_t cols) {
  if (row0 < 0 || rows < 0 || row0 + rows > x.L || col0 < 0 || cols < 0 || col0 + cols > x.D)
    throw std::out_of_range("bf16 tile: rows or columns outside the tensor");
  std::vector<std::uint16_t> out(static_cast<std::size_t>(x.B * rows * x.H * cols));
  std::size_t i = 0;
  for (std::int64_t b = 0; b < x.B; ++b)
    for (std::int64_t l = 0; l < rows; ++l)
      for (std::int64_t h = 0; h < x.H; ++h) {
        const double* src = x.row(b, row0 + l, h) + col0;
        for (std::int64_t d = 0; d < cols; ++d) out[i++] = to_bf16_bits(src[d]);
      }
  return out;
}

void unpack_bf16_rows(const std::vector<std::uint16_t>& packed, Tensor<double>& x, std::int64_t row0,
                      std::int64_t rows, std::int64_t col0, std::int64_t cols) {
  if (row0 < 0 || rows < 0 || row0 + rows > x.L || col0 < 0 || cols < 0 || col0 + cols > x.D ||
      packed.size() != static_cast<std::size_t>(x.B * rows * x.H * cols))
    throw std::out_of_range("bf16 tile: packed rows do not fit the tensor");
  std::size_t i = 0;
  for (std::int64_t b = 0; b < x.B; ++b)
    for (std::int64_t l = 0; l < rows; ++l)
      for (std::int64_t h = 0; h < x.H; ++h) {
        double* dst = x.row(b, row0 + l, h) + col0;
        for (std::int64_t d = 0; d < cols; ++d) dst[d] = from_bf16_bits(packed[i++]);
      }
}

namespace {

Bf16Tile tile_of(const Tensor<double>& q, const Tensor<double>& k, std::int64_t d_v, const Tile& t,
                 const Tensor<double>* keep) {
  if (keep != nullptr)
    throw std::invalid_argument("bf16 attention tiles: sparse (DSA) masks are not supported; --check on GPUs needs "
                                "dense attention (model.attention_type without the DSA indexer)");
  if (q.D != d_v)
    throw std::invalid_argument("bf16 attention tiles: head_dim_qk (" + std::to_string(q.D) + ") != head_dim_v (" +
                                std::to_string(d_v) + "); the GPU kernels need equal head dims");
  Bf16Tile d;
  d.batch = static_cast<int>(q.B);
  d.q_len = static_cast<int>(t.q_len);
  d.kv_len = static_cast<int>(t.kv_len);
  d.heads = static_cast<int>(q.H);
  d.kv_heads = static_cast<int>(k.H);
  d.head_dim = static_cast<int>(q.D);
  d.causal = t.causal;
  return d;
}

std::size_t count(int a, int b, int c, int d) {
  return static_cast<std::size_t>(a) * static_cast<std::size_t>(b) * static_cast<std::size_t>(c) *
         static_cast<std::size_t>(d);
}

}  // namespace

void Bf16TileKernels::forward(const Tensor<double>& q, const Tensor<double>& k, const Tensor<double>& v,
                              std::int64_t v_col0, std::int64_t d_v, const Tile& t, Tensor<double>& out,
                              Tensor<double>& lse, const Tensor<double>* keep) {
  const Bf16Tile d = tile_of(q, k, d_v, t, keep);
  out = Tensor<double>(q.B, q.L, q.H, d_v);
  lse = Tensor<double>(q.B, q.L, q.H, 1, -std::numeric_limits<double>::infinity());
  if (d.q_len == 0 || d.kv_len == 0) return;
  const auto qb = pack_bf16_rows(q, t.q_off, t.q_len, 0, q.D);
  const auto kb = pack_bf16_rows(k, t.kv_off, t.kv_len, 0, q.D);
  const auto vb = pack_bf16_rows(v, t.kv_off, t.kv_len, v_col0, d_v);
  std::vector<std::uint16_t> ob(count(d.batch, d.q_len, d.heads, d.head_dim));
  std::vector<float> lb(count(d.batch, d.heads, d.q_len, 1));
  device_.forward(d, {.q = qb.data(), .k = kb.data(), .v = vb.data()}, ob.data(), lb.data());
  unpack_bf16_rows(ob, out, t.q_off, t.q_len, 0, d_v);
  for (int b = 0; b < d.batch; ++b)
    for (int h = 0; h < d.heads; ++h)
      for (int i = 0; i < d.q_len; ++i)
        lse.at(b, t.q_off + i, h, 0) = lb[count(b * d.heads + h, d.q_len, 1, 1) + static_cast<std::size_t>(i)];
}

void Bf16TileKernels::backward(const Tensor<double>& q, const Tensor<double>& k, const Tensor<double>& v,
                               std::int64_t v_col0, std::int64_t d_v, const Tensor<double>& out,
                               const Tensor<double>& dout, const Tensor<double>& lse, const Tile& t,
                               Tensor<double>& dq, Tensor<double>& dk, Tensor<double>& dv,
                               const Tensor<double>* keep) {
  const Bf16Tile d = tile_of(q, k, d_v, t, keep);
  dq = Tensor<double>(q.B, q.L, q.H, q.D);
  dk = Tensor<double>(k.B, k.L, k.H, q.D);
  dv = Tensor<double>(k.B, k.L, k.H, d_v);
  if (d.q_len == 0 || d.kv_len == 0) return;
  const auto qb = pack_bf16_rows(q, t.q_off, t.q_len, 0, q.D);
  const auto kb = pack_bf16_rows(k, t.kv_off, t.kv_len, 0, q.D);
  const auto vb = pack_bf16_rows(v, t.kv_off, t.kv_len, v_col0, d_v);
  const auto ob = pack_bf16_rows(out, t.q_off, t.q_len, 0, d_v);
  const auto dob = pack_bf16_rows(dout, t.q_off, t.q_len, 0, d_v);
  std::vector<float> lb(count(d.batch, d.heads, d.q_len, 1));
  for (int b = 0; b < d.batch; ++b)
    for (int h = 0; h < d.heads; ++h)
      for (int i = 0; i < d.q_len; ++i)
        lb[count(b * d.heads + h, d.q_len, 1, 1) + static_cast<std::size_t>(i)] =
            static_cast<float>(lse.at(b, t.q_off + i, h, 0));
  std::vector<std::uint16_t> dqb(qb.size()), dkb(kb.size()), dvb(vb.size());
  device_.backward(d, {qb.data(), kb.data(), vb.data(), ob.data(), dob.data(), lb.data()},
                   {dqb.data(), dkb.data(), dvb.data()});
  unpack_bf16_rows(dqb, dq, t.q_off, t.q_len, 0, q.D);
  unpack_bf16_rows(dkb, dk, t.kv_off, t.kv_len, 0, q.D);
  unpack_bf16_rows(dvb, dv, t.kv_off, t.kv_len, 0, d_v);
}

}  // namespace hcpsim::kernels
