// GEMM efficiency by shape and precision (term `gemm_shapes`). The constants are fitted to public
// measurements, each named below; docs/metrics.md section 9.11 gives the fits' errors.
#include "engine/cost/gemm_efficiency.h"

#include <algorithm>
#include <cmath>

#include "engine/cost/layer_gemms.h"
#include "engine/scenario/gpu_family.h"

namespace hcpsim {
namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// Output tiles of the kernels cuBLAS runs for large BF16 / FP8 GEMMs on Hopper and Blackwell.
constexpr double kTileM = 128;
constexpr double kWideTileN = 256;
constexpr double kNarrowTileN = 128;

// H100 SXM5 BF16: OpenXLA's measured cuBLAS table for sm_90 (xla/service/gpu/model/
// matmul_interpolator_data.h, "bf16xbf16->bf16", 32 shapes m, n, k in 256..4096, batch 1..4),
// fitted with the cost model's 2 us per kernel: mean error 6.9 % over the 21 shapes of >= 8 GFLOP
// (4096^3: 783 TFLOP/s measured, 764 fitted).
constexpr GemmKernelFit kHopperBf16{0.85, 0.82, 228};
// H100-class FP8 (E4M3): k_half twice BF16's (a K stage of the same bytes holds twice the elements);
// plateau from a K sweep of FP8 GEMMs at m = n = 8192 on an H800 SXM (tile-lang's
// benchmark/matmul_fp8/README.md: 1129 TFLOP/s at k 1024, 1467 at 4096, 1541 at 16384), which the
// doubled k_half reproduces within 4 % from k = 256 to 16384.
constexpr GemmKernelFit kHopperFp8{0.825, 0.82, 456};
// B200 BF16: the same OpenXLA table for sm_100 (20 shapes >= 8 GFLOP, mean error 5.0 %; 4 x 4096 x
// 4096 x 2048: 1544 TFLOP/s of 2250). GB200 is taken as the same kernels at its own peak.
constexpr GemmKernelFit kBlackwellBf16{0.73, 0.96, 375};
// Blackwell FP8: BF16's plateau and BF16's k_half. Transformer Engine's GEMM-profiling guide times
// the forward GEMMs of its layer (below) pre-quantized on a B300 at 2.158 ms, which these constants
// give within 1 % (the doubled k_half of Hopper's FP8 gave 5.5 % too slow); OpenXLA's sm_100 FP8
// column also loses less with a shallow k than a doubled k_half says (docs/metrics.md 9.11).
constexpr GemmKernelFit kBlackwellFp8{0.73, 0.96, 375};

// The backward GEMMs, from Transformer Engine's GEMM-profiling guide (docs/examples/gemm_profiling,
// "Autocast vs Pre-quantized"): one layer of hidden 4096, 32 heads (QKV 12,288 columns), FFN 16,384
// (not gated) and 15,872 tokens, inputs quantized before the timed loop, sums over the layer's four
// GEMMs in ms. Forward, dgrad and wgrad run other operand layouts (and on Hopper FP8 a transposed
// FP8 copy); the shape model alone gives dgrad and wgrad their depth's advantage, which the
// measurements do not show. Each pass's rate is the modelled time ratio to the forward over the
// measured one, so the fits keep their absolute calibration and take only the pass's cost.
struct PassSums_ms {
  double forward, dgrad, wgrad;
};
constexpr PassSums_ms kB300Bf16{4.250, 4.434, 4.418};
constexpr PassSums_ms kB300Fp8CurrentScaling{2.158, 2.329, 2.325};
constexpr PassSums_ms kH200NvlBf16{10.632, 10.747, 10.530};
constexpr PassSums_ms kH200NvlFp8CurrentScaling{5.577, 5.661, 5.547};
constexpr double kGuideTokens = 15872;
constexpr double kGuideLayer[4][2] = {{4096, 12288}, {4096, 4096}, {4096, 16384}, {16384, 4096}};   // in, out
constexpr int kBlackwellSms = 148;   // B200's; the ratios move < 0.5 % at B300's larger count
constexpr int kHopperSms = 132;

// Blackwell MXFP8 against per-tensor FP8: Transformer Engine's GEMM-profiling guide
// (docs/examples/gemm_profiling/gemm_profiling.rst, "Autocast vs Pre-quantized"), B300 SXM6, one
// layer of hidden 4096, FFN 16384, 15,872 tokens, inputs quantized before the timed loop, per-layer
// sums in ms: fprop 2.158 (FP8 current scaling) vs 2.365 (MXFP8), dgrad 2.329 vs 2.397, wgrad 2.325
// vs 2.400. The ratio is of two kernels measured on one GPU in one run, so it carries to B200/GB200
// whatever their absolute rate.
constexpr PassSums_ms kB300Mxfp8{2.365, 2.397, 2.400};
constexpr double kBlackwellMxfp8Forward = kB300Fp8CurrentScaling.forward / kB300Mxfp8.forward;
constexpr double kBlackwellMxfp8Dgrad = kB300Fp8CurrentScaling.dgrad / kB300Mxfp8.dgrad;
constexpr double kBlackwellMxfp8Wgrad = kB300Fp8CurrentScaling.wgrad / kB300Mxfp8.wgrad;

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

double tile_efficiency(const GemmShape& s, double tile_n, int sms) {
  const double tiles_m = std::ceil(s.m / kTileM), tiles_n = std::ceil(s.n / tile_n);
  const double tiles = tiles_m * tiles_n;
  const double fill = (s.m * s.n) / (tiles_m * kTileM * tiles_n * tile_n);
  const double waves = std::ceil(tiles / sms);
  return fill * tiles / (waves * sms);
}

// The fit with its dgrad and wgrad rates from the guide's per-pass sums (the shape model's FLOPs per
// efficiency over the layer's GEMMs; the peak cancels in the ratios).
GemmKernelFit with_pass_rates(GemmKernelFit fit, const PassSums_ms& measured, int sms) {
  double modelled[3] = {0, 0, 0};
  for (const auto& g : kGuideLayer) {
    const double in = g[0], out = g[1];
    const GemmShape shapes[3] = {{kGuideTokens, out, in}, {kGuideTokens, in, out}, {in, out, kGuideTokens}};
    for (int i = 0; i < 3; ++i)
      modelled[i] += 2 * shapes[i].m * shapes[i].n * shapes[i].k / gemm_shape_efficiency(fit, shapes[i], sms);
  }
  fit.dgrad_rate = (modelled[1] / modelled[0]) / (measured.dgrad / measured.forward);
  fit.wgrad_rate = (modelled[2] / modelled[0]) / (measured.wgrad / measured.forward);
  return fit;
}

}  // namespace

std::optional<GemmKernelFit> published_gemm_fit(const std::string& gpu, GemmPrecision p) {
  const bool fp8 = p == GemmPrecision::FP8;
  if (starts_with(gpu, "h100") || starts_with(gpu, "h200") || starts_with(gpu, "h800"))
    return fp8 ? with_pass_rates(kHopperFp8, kH200NvlFp8CurrentScaling, kHopperSms)
               : with_pass_rates(kHopperBf16, kH200NvlBf16, kHopperSms);
  if (starts_with(gpu, "b200") || starts_with(gpu, "gb200"))
    return fp8 ? with_pass_rates(kBlackwellFp8, kB300Fp8CurrentScaling, kBlackwellSms)
               : with_pass_rates(kBlackwellBf16, kB300Bf16, kBlackwellSms);
  return std::nullopt;
}

double gemm_pass_rate(const GemmKernelFit& fit, GemmPass pass) {
  switch (pass) {
    case GemmPass::Forward: return 1.0;
    case GemmPass::Dgrad: return fit.dgrad_rate;
    case GemmPass::Wgrad: return fit.wgrad_rate;
  }
  return 1.0;
}

GemmPass gemm_pass_of(std::string_view label) {
  if (ends_with(label, "_dgrad")) return GemmPass::Dgrad;
  if (ends_with(label, "_wgrad")) return GemmPass::Wgrad;
  return GemmPass::Forward;
}

double fp8_recipe_gemm_rate(const std::string& gpu, const std::string& recipe, GemmPass pass) {
  if (!is_blackwell_gpu(gpu) || (recipe != "mxfp8" && recipe != "blockwise")) return 1.0;
  switch (pass) {
    case GemmPass::Forward: return kBlackwellMxfp8Forward;
    case GemmPass::Dgrad: return kBlackwellMxfp8Dgrad;
    case GemmPass::Wgrad: return kBlackwellMxfp8Wgrad;
  }
  return 1.0;
}

double gemm_shape_efficiency(const GemmKernelFit& fit, const GemmShape& s, int sm_count) {
  if (!(s.m > 0 && s.n > 0 && s.k > 0)) return fit.plateau;
  const int sms = std::max(1, sm_count);
  const double tiles = std::max(tile_efficiency(s, kWideTileN, sms),
                                fit.narrow_tile_ratio * tile_efficiency(s, kNarrowTileN, sms));
  return fit.plateau * tiles * s.k / (s.k + fit.k_half);
}

std::optional<GemmShape> gemm_shape_of(const Scenario& s, std::string_view label) {
  if (auto layer = layer_gemm_shape(s, label)) return layer;
  // The output layer (engine/step/step_work.cpp): [tokens x h] x [h x V/tp]; prefill computes
  // the logits of each sequence's last token only.
  const double h = s.model.hidden_size;
  const double vocab = static_cast<double>(s.model.vocab_size) / std::max(1, s.tp());
  const double tokens = s.train.mode == TrainMode::Prefill
                            ? static_cast<double>(s.train.micro_batch_size)
                            : static_cast<double>(s.train.micro_batch_size) * static_cast<double>(s.model.seq_length) /
                                  std::max(1, s.cp());
  if (label == "output_gemm") return GemmShape{tokens, vocab, h};
  if (label == "output_dgrad") return GemmShape{tokens, h, vocab};
  if (label == "output_wgrad") return GemmShape{h, vocab, tokens};
  return std::nullopt;
}

GemmShape cube_gemm(double flops) {
  const double side = std::cbrt(std::max(0.0, flops) / 2.0);
  return {side, side, side};
}

}  // namespace hcpsim
