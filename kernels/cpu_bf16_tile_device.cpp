#include "kernels/cpu_bf16_tile_device.h"

#include <cstddef>

#include "engine/reference/attention_kernels.h"

namespace hcpsim::kernels {

using reference::Tensor;
using reference::Tile;

namespace {

std::size_t count(int a, int b, int c, int d) {
  return static_cast<std::size_t>(a) * static_cast<std::size_t>(b) * static_cast<std::size_t>(c) *
         static_cast<std::size_t>(d);
}

Tensor<double> unpacked(const std::uint16_t* p, int batch, int rows, int heads, int dim) {
  Tensor<double> t(batch, rows, heads, dim);
  for (std::size_t i = 0; i < t.v.size(); ++i) t.v[i] = from_bf16_bits(p[i]);
  return t;
}

void pack_into(const Tensor<double>& t, std::uint16_t* p) {
  for (std::size_t i = 0; i < t.v.size(); ++i) p[i] = to_bf16_bits(t.v[i]);
}

}  // namespace

void CpuBf16TileDevice::forward(const Bf16Tile& t, const Bf16TileIn& in, std::uint16_t* o, float* lse) {
  const Tensor<double> qt = unpacked(in.q, t.batch, t.q_len, t.heads, t.head_dim);
  const Tensor<double> kt = unpacked(in.k, t.batch, t.kv_len, t.kv_heads, t.head_dim);
  const Tensor<double> vt = unpacked(in.v, t.batch, t.kv_len, t.kv_heads, t.head_dim);
  Tensor<double> ot, lt;
  reference::attention_forward(qt, kt, vt, 0, t.head_dim, Tile{0, t.q_len, 0, t.kv_len, t.causal}, ot, lt);
  pack_into(ot, o);
  for (int b = 0; b < t.batch; ++b)
    for (int h = 0; h < t.heads; ++h)
      for (int i = 0; i < t.q_len; ++i)
        lse[count(b * t.heads + h, t.q_len, 1, 1) + static_cast<std::size_t>(i)] = static_cast<float>(lt.at(b, i, h, 0));
}

void CpuBf16TileDevice::backward(const Bf16Tile& t, const Bf16TileIn& in, const Bf16TileGrads& out) {
  const Tensor<double> qt = unpacked(in.q, t.batch, t.q_len, t.heads, t.head_dim);
  const Tensor<double> kt = unpacked(in.k, t.batch, t.kv_len, t.kv_heads, t.head_dim);
  const Tensor<double> vt = unpacked(in.v, t.batch, t.kv_len, t.kv_heads, t.head_dim);
  const Tensor<double> ot = unpacked(in.o, t.batch, t.q_len, t.heads, t.head_dim);
  const Tensor<double> dot = unpacked(in.dout, t.batch, t.q_len, t.heads, t.head_dim);
  Tensor<double> lt(t.batch, t.q_len, t.heads, 1);
  for (int b = 0; b < t.batch; ++b)
    for (int h = 0; h < t.heads; ++h)
      for (int i = 0; i < t.q_len; ++i)
        lt.at(b, i, h, 0) = in.lse[count(b * t.heads + h, t.q_len, 1, 1) + static_cast<std::size_t>(i)];
  Tensor<double> dqt, dkt, dvt;
  reference::attention_backward(qt, kt, vt, 0, t.head_dim, ot, dot, lt, Tile{0, t.q_len, 0, t.kv_len, t.causal}, dqt,
                                dkt, dvt);
  pack_into(dqt, out.dq);
  pack_into(dkt, out.dk);
  pack_into(dvt, out.dv);
}

}  // namespace hcpsim::kernels
