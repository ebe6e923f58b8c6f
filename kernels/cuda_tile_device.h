#pragma once
// The GPU behind `hcpsim run --check`: each attention tile of the schedule (bf16_tile_kernels.h)
// is copied to the current CUDA device, computed by attention_forward / attention_backward
// (attention.h) and copied back; one stream, calls serialised (the reference executor and the CPU
// runner call it from one thread at a time; a mutex makes that a rule).
#include <cuda_runtime_api.h>

#include <mutex>

#include "kernels/bf16_tile_kernels.h"

namespace hcpsim::kernels {

class CudaTileDevice final : public Bf16TileDevice {
 public:
  // On the current device (the caller's cudaSetDevice). Throws std::runtime_error on CUDA errors.
  CudaTileDevice();
  ~CudaTileDevice() override;
  CudaTileDevice(const CudaTileDevice&) = delete;
  CudaTileDevice& operator=(const CudaTileDevice&) = delete;

  const char* name() const override { return "cuda bf16"; }
  void forward(const Bf16Tile& t, const Bf16TileIn& in, std::uint16_t* o, float* lse) override;
  void backward(const Bf16Tile& t, const Bf16TileIn& in, const Bf16TileGrads& out) override;

 private:
  std::mutex m_;
  cudaStream_t stream_ = nullptr;
};

}  // namespace hcpsim::kernels
