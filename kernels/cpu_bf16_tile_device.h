#pragma once
// The CPU stand-in of the GPU behind `run --check` (cuda_tile_device.h): the same dense bf16 tiles
// in and out, the reference executor's kernels (attention_kernels.h) in double precision between.
// CI runs the whole GPU check path with it (tests/runner/test_run_check.cpp, and
// HCPSIM_CHECK_TILES=cpu-bf16 under `mpirun ... --device cpu --check`).
#include "kernels/bf16_tile_kernels.h"

namespace hcpsim::kernels {

class CpuBf16TileDevice final : public Bf16TileDevice {
 public:
  const char* name() const override { return "cpu bf16"; }
  void forward(const Bf16Tile& t, const Bf16TileIn& in, std::uint16_t* o, float* lse) override;
  void backward(const Bf16Tile& t, const Bf16TileIn& in, const Bf16TileGrads& out) override;
};

}  // namespace hcpsim::kernels
