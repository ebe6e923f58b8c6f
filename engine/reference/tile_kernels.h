#pragma once
// Another implementation of the attention tiles (PayloadOp::AttnFwd / AttnBwd) of a payload run:
// the reference executor and the CPU runner device normally compute them with the double-precision
// kernels of attention_kernels.h; `run --check` on GPUs hands them to the CUDA kernels instead
// (kernels/bf16_tile_kernels.h), so that the schedule's real data goes through the GPU's attention
// while the data moves and the ring merges stay exact. Same contract as attention_kernels.h.
#include <cstdint>

#include "engine/reference/attention_kernels.h"
#include "engine/reference/tensor.h"

namespace hcpsim::reference {

class TileKernels {
 public:
  virtual ~TileKernels() = default;
  // Named in errors and reports ("cuda bf16", ...).
  virtual const char* name() const = 0;
  // As reference::attention_forward (out: q's rows, zero outside the tile; lse: -inf outside).
  virtual void forward(const Tensor<double>& q, const Tensor<double>& k, const Tensor<double>& v, std::int64_t v_col0,
                       std::int64_t d_v, const Tile& t, Tensor<double>& out, Tensor<double>& lse,
                       const Tensor<double>* keep) = 0;
  // As reference::attention_backward (dq: q's shape; dk, dv: [B][Lk][G][d], zero outside the tile).
  virtual void backward(const Tensor<double>& q, const Tensor<double>& k, const Tensor<double>& v,
                        std::int64_t v_col0, std::int64_t d_v, const Tensor<double>& out,
                        const Tensor<double>& dout, const Tensor<double>& lse, const Tile& t, Tensor<double>& dq,
                        Tensor<double>& dk, Tensor<double>& dv, const Tensor<double>* keep) = 0;
};

}  // namespace hcpsim::reference
