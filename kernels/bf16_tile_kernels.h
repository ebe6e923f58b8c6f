#pragma once
// The attention tiles of a payload run computed by bf16 kernels: the schedule's double tensors are
// cut to the tile's rows, rounded to bf16 and packed dense ([batch, rows, heads, head_dim]); a
// Bf16TileDevice computes the tile; O, dQ, dK, dV come back as bf16 and LSE as fp32, and are put
// back in the tile's rows. This is how `hcpsim run --check` on GPUs feeds the schedule's real data
// through the CUDA kernels (cuda_tile_device.h) while the data moves and merges stay on the host.
// No CUDA here: the packing and the whole check path are tested on CPUs with CpuBf16TileDevice
// (cpu_bf16_tile_device.h), which rounds the same way and computes in double between.
#include <cstdint>
#include <vector>

#include "engine/reference/tile_kernels.h"

namespace hcpsim::kernels {

// Round-to-nearest-even to bf16 bits (NaN stays NaN), and back (exact).
std::uint16_t to_bf16_bits(double x);
double from_bf16_bits(std::uint16_t b);

// One dense tile. causal: key j is visible to query i when j <= i + (kv_len - q_len).
struct Bf16Tile {
  int batch = 1, q_len = 0, kv_len = 0, heads = 0, kv_heads = 0, head_dim = 0;
  bool causal = false;
};

// Computes dense bf16 tiles: q, o, dout, dq [batch][q_len][heads][head_dim]; k, v, dk, dv
// [batch][kv_len][kv_heads][head_dim]; lse fp32 [batch][heads][q_len] (natural log, -inf for a row
// that sees no key). Softmax scale 1/sqrt(head_dim); GQA: query head h reads KV head
// h / (heads / kv_heads).
// A tile's inputs: q, k, v for the forward; the backward also reads o, dout and lse.
struct Bf16TileIn {
  const std::uint16_t *q = nullptr, *k = nullptr, *v = nullptr;
  const std::uint16_t *o = nullptr, *dout = nullptr;
  const float* lse = nullptr;
};
// The backward's outputs.
struct Bf16TileGrads {
  std::uint16_t *dq = nullptr, *dk = nullptr, *dv = nullptr;
};

class Bf16TileDevice {
 public:
  virtual ~Bf16TileDevice() = default;
  virtual const char* name() const = 0;
  virtual void forward(const Bf16Tile& t, const Bf16TileIn& in, std::uint16_t* o, float* lse) = 0;
  virtual void backward(const Bf16Tile& t, const Bf16TileIn& in, const Bf16TileGrads& out) = 0;
};

// Rows [row0, row0 + rows) and columns [col0, col0 + cols) of every (batch, head) of x, as dense bf16.
std::vector<std::uint16_t> pack_bf16_rows(const reference::Tensor<double>& x, std::int64_t row0, std::int64_t rows,
                                          std::int64_t col0, std::int64_t cols);
// The inverse: writes dense bf16 `packed` into rows [row0, row0 + rows), columns [col0, ...) of x.
void unpack_bf16_rows(const std::vector<std::uint16_t>& packed, reference::Tensor<double>& x, std::int64_t row0,
                      std::int64_t rows, std::int64_t col0, std::int64_t cols);

// reference::TileKernels on a Bf16TileDevice. Throws std::invalid_argument for what bf16 tiles
// cannot run: sparse (DSA) masks and head_dim_qk != head_dim_v.
class Bf16TileKernels final : public reference::TileKernels {
 public:
  explicit Bf16TileKernels(Bf16TileDevice& device) : device_(device) {}
  const char* name() const override { return device_.name(); }
  void forward(const reference::Tensor<double>& q, const reference::Tensor<double>& k,
               const reference::Tensor<double>& v, std::int64_t v_col0, std::int64_t d_v, const reference::Tile& t,
               reference::Tensor<double>& out, reference::Tensor<double>& lse,
               const reference::Tensor<double>* keep) override;
  void backward(const reference::Tensor<double>& q, const reference::Tensor<double>& k,
                const reference::Tensor<double>& v, std::int64_t v_col0, std::int64_t d_v,
                const reference::Tensor<double>& out, const reference::Tensor<double>& dout,
                const reference::Tensor<double>& lse, const reference::Tile& t, reference::Tensor<double>& dq,
                reference::Tensor<double>& dk, reference::Tensor<double>& dv,
                const reference::Tensor<double>* keep) override;

 private:
  Bf16TileDevice& device_;
};

}  // namespace hcpsim::kernels
