#pragma once
// The attention kernels' configurations as types: tile sizes, warps, pipeline stages, the shared
// memory a CTA asks for and the accumulator registers a thread holds, with their limits checked at
// compile time (a configuration that breaks one does not build). attention_fwd.cu and
// attention_bwd.cu take every size from here; with_head_dim picks the configuration of a head dim.
#include <cstddef>
#include <stdexcept>
#include <string>

namespace hcpsim::kernels {

// Limits of the GPUs the kernels are built for (sm_80 and sm_90; the smaller of each).
struct SmLimits {
  static constexpr std::size_t kMaxSharedBytesPerBlock = 163 * 1024;   // opt-in maximum on sm_80 (sm_90: 227 KB)
  static constexpr int kMaxRegistersPerThread = 255;
  // Registers the accumulators may take: the rest holds fragments in flight, addresses and loop state.
  static constexpr int kMaxAccumulatorRegisters = kMaxRegistersPerThread - 64;
};

// Forward: one CTA of kWarps warps per kRows query rows; K/V tiles of kKeys keys through shared
// memory in kStages cp.async stages.
struct ForwardTiles {
  static constexpr int kRows = 64;
  static constexpr int kKeys = 64;
  static constexpr int kWarps = 4;
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kStages = 2;
};

template <int HeadDim>
struct ForwardConfig : ForwardTiles {
  static constexpr int kHeadDim = HeadDim;
  static constexpr int kLd = HeadDim + 8;   // padded shared row: conflict-free fragment reads
  // K and V, kStages tiles each, bf16.
  static constexpr std::size_t kSharedBytes = std::size_t{2} * kStages * kKeys * kLd * 2;
  // Per thread: the O accumulator (HeadDim / 8 m16n8 tiles x 4 floats), S (kKeys / 8 x 4), the
  // Q fragments (HeadDim / 16 k-steps x 4 registers) and the running max and sum of two rows.
  static constexpr int kAccumulatorRegisters = HeadDim / 8 * 4 + kKeys / 8 * 4 + HeadDim / 16 * 4 + 4;

  static_assert(HeadDim == 64 || HeadDim == 128, "the kernels are built for head_dim 64 and 128");
  static_assert(kRows == 16 * kWarps, "each warp owns the 16 query rows of one m16 tile");
  static_assert(kKeys % 16 == 0 && HeadDim % 16 == 0, "mma.sync m16n8k16 walks k in steps of 16");
  static_assert(kLd * 2 % 16 == 0, "shared rows 16-byte aligned for cp.async and ldmatrix");
  static_assert(kSharedBytes <= SmLimits::kMaxSharedBytesPerBlock, "forward tiles exceed the shared memory of a CTA");
  static_assert(kAccumulatorRegisters <= SmLimits::kMaxAccumulatorRegisters, "forward accumulators would spill");
};

// Backward: one CTA of kWarps warps per kKeys keys; query tiles of kRows rows; P and dS tiles
// (kRows x kKeys, row stride kLdP) go through shared memory for the transposed products.
struct BackwardTiles {
  static constexpr int kRows = 64;
  static constexpr int kKeys = 64;
  static constexpr int kWarps = 4;
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kLdP = kKeys + 8;
};

template <int HeadDim>
struct BackwardConfig : BackwardTiles {
  static constexpr int kHeadDim = HeadDim;
  static constexpr int kLd = HeadDim + 8;
  // K, V (kKeys rows), Q, dO (kRows rows), P and dS (bf16), LSE and delta of kRows rows (fp32).
  static constexpr std::size_t kSharedBytes =
      std::size_t{2} * (kKeys + kRows) * kLd * 2 + std::size_t{2} * kRows * kLdP * 2 + std::size_t{2} * kRows * 4;
  // Per thread: the dK and dV accumulators (HeadDim / 8 m16n8 tiles x 4 floats each).
  static constexpr int kAccumulatorRegisters = 2 * (HeadDim / 8 * 4);

  static_assert(HeadDim == 64 || HeadDim == 128, "the kernels are built for head_dim 64 and 128");
  static_assert(kKeys == 16 * kWarps && kRows == 16 * kWarps, "each warp owns 16 keys (dK, dV) and 16 query rows (S)");
  static_assert(kRows % 16 == 0 && HeadDim % 16 == 0, "mma.sync m16n8k16 walks k in steps of 16");
  static_assert(kLd * 2 % 16 == 0 && kLdP * 2 % 16 == 0, "shared rows 16-byte aligned for cp.async and ldmatrix");
  static_assert(kSharedBytes <= SmLimits::kMaxSharedBytesPerBlock, "backward tiles exceed the shared memory of a CTA");
  static_assert(kAccumulatorRegisters <= SmLimits::kMaxAccumulatorRegisters, "backward accumulators would spill");
};

// Calls f(Config<64>{}) or f(Config<128>{}); any other head dim is refused (check_attention_args
// refuses it first, naming the field).
template <template <int> class Config, class F>
void with_head_dim(int head_dim, F&& f) {
  switch (head_dim) {
    case 64: f(Config<64>{}); return;
    case 128: f(Config<128>{}); return;
    default: throw std::invalid_argument("head_dim " + std::to_string(head_dim) + " has no kernel configuration (64 or 128)");
  }
}

}  // namespace hcpsim::kernels
