#pragma once
// GEMM efficiency by shape and precision (cost-model term `gemm_shapes`, docs/metrics.md section
// 9.11). A GEMM of output [m x n] and reduction depth k runs as output tiles, one per thread block,
// in waves over the GPU's SMs; each tile loops over k and then writes its output. Its efficiency is
//
//   plateau(precision) x tile fill x wave fill x k / (k + k_half)
//
// with the better of two tiles (the wide tile, and the half-width tile at `narrow_tile_ratio` of
// the wide tile's rate) as the library's heuristic picks, where
//   tile fill  = m n / (tiles_m tile_m x tiles_n tile_n)        (padding of partial tiles)
//   wave fill  = tiles / (ceil(tiles / SMs) x SMs)              (idle SMs in the last wave)
//   k_half     = the reduction depth whose main loop lasts as long as a tile's fixed prologue and
//                epilogue (FP8 moves twice the elements per byte: twice the BF16 k_half).
// Constants fitted to published cuBLAS measurements per GPU and precision (gemm_efficiency.cpp).
#include <optional>
#include <string>
#include <string_view>

#include "engine/scenario/scenario.h"

namespace hcpsim {

enum class GemmPrecision { BF16, FP8 };

// One GEMM on one GPU (after the tensor-parallel split): output rows m, output columns n, depth k.
struct GemmShape {
  double m = 0;
  double n = 0;
  double k = 0;
};

// The published fit for one GPU and precision.
struct GemmKernelFit {
  double plateau = 0;             // fraction of the precision's peak of a large wave-aligned GEMM
  double narrow_tile_ratio = 1;   // rate of the 128 x 128 tile relative to the 128 x 256 tile
  double k_half = 0;              // elements of k at which the main loop is half the kernel
  double dgrad_rate = 1;          // a dgrad GEMM's rate relative to a forward GEMM of the same shape model
  double wgrad_rate = 1;          // a wgrad GEMM's rate, likewise
};

// The fit for GPU preset `gpu_name` ("h100-sxm", "h200-sxm", "b200", "gb200") and precision;
// nullopt where no measurement is published (A100: the cost model keeps `efficiency.gemm`).
std::optional<GemmKernelFit> published_gemm_fit(const std::string& gpu_name, GemmPrecision p);

// Fraction of the precision's peak a GEMM of `shape` reaches on a GPU with `sm_count` SMs.
double gemm_shape_efficiency(const GemmKernelFit& fit, const GemmShape& shape, int sm_count);

// The pass a layer GEMM belongs to, from its label: `*_dgrad`, `*_wgrad`, else the forward.
enum class GemmPass { Forward, Dgrad, Wgrad };
GemmPass gemm_pass_of(std::string_view label);

// The fit's rate for a GEMM of pass `pass` relative to the forward GEMM (1 for the forward).
double gemm_pass_rate(const GemmKernelFit& fit, GemmPass pass);

// Rate of FP8 recipe `recipe`'s GEMM kernel (`model.fp8_recipe`) relative to the per-tensor-scaled
// FP8 kernel of the same shape and pass, on GPU preset `gpu_name`: below 1 for the block-scaled
// kernels Blackwell runs for `mxfp8` (and for `blockwise`, which Transformer Engine runs on
// Blackwell through the MXFP8 kernels); 1 wherever no measurement is published.
double fp8_recipe_gemm_rate(const std::string& gpu_name, const std::string& recipe, GemmPass pass);

// The per-GPU shape of the GEMM task labelled `label` in scenario `s`: the layer projections of
// engine/schedule/layer_ops.cpp and the output layer of engine/step/step_work.cpp, forward, dgrad
// and wgrad; nullopt for any other label.
std::optional<GemmShape> gemm_shape_of(const Scenario& s, std::string_view label);

// A GEMM whose shape is not known, as a cube of the same FLOPs (m = n = k = (flops / 2)^(1/3)).
GemmShape cube_gemm(double flops);

}  // namespace hcpsim
