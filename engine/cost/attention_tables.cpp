// Attention throughput tables. Numbers are TFLOP/s read off the benchmark figures of
//  - FlashAttention-3 (Shah et al., 2024, arXiv:2407.08608), "Attention forward/backward speed"
//    figures, H100 80GB SXM5, BF16, batch x seqlen = 16k tokens, 2048 = heads x head_dim;
//  - FlashAttention-2 (Dao, 2023, arXiv:2307.08691), A100 80GB SXM4 figures (forward reaches up to
//    73 % and backward up to 63 % of the 312 TFLOP/s peak at head dim 128, 16k);
//  - NVIDIA's cudnn-frontend SDPA training benchmark (github.com/NVIDIA/cudnn-frontend, file
//    benchmark/sdpa_benchmark_training/results/llama3.1/gb200/llama3.1_20260424_100750.csv): cuDNN's
//    fused attention on a GB200, cuDNN 9.22, BF16, batch 2, 64 query and 8 KV heads, head dim 128,
//    non-deterministic backward, q = kv = 2k .. 32k. That benchmark counts FLOPs as the papers do
//    (unmasked pairs; backward 2.5 x forward).
// The papers count causal FLOPs as half the full count, as hcpsim's exact pair count does, so the
// causal tables apply to hcpsim's FLOPs unchanged. Cells the papers do not publish (H100 forward
// causal head dim 64, backward causal) are derived from the published ones by the ratio named next
// to them; docs/metrics.md lists which is which.
#include "engine/cost/attention_tables.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include "engine/cost/calibration.h"
#include "engine/scenario/gpu_family.h"

namespace hcpsim {
namespace {

constexpr std::array<double, 6> kSeqLens{512, 1024, 2048, 4096, 8192, 16384};
// A published cell left out of the table because validation/published uses it as a `holdout` case
// (the forward 16k cells of the causal head-dim-128 and of the head-dim-256 figures): lengths past
// the last cell kept are clamped to it.
constexpr double kHeldOut = -1;
using Row = std::array<double, 6>;   // TFLOP/s at kSeqLens

struct Table {
  Row fa2, cudnn, fa3;
};

// H100 SXM5 (peak 989 TFLOP/s). Forward, non-causal.
constexpr Table kH100FwdFull64{{282, 306, 318, 321, 322, 324}, {335, 373, 395, 408, 412, 413}, {333, 392, 460, 476, 496, 497}};
constexpr Table kH100FwdFull128{{309, 350, 362, 368, 370, 370}, {497, 574, 617, 609, 600, 595}, {467, 565, 625, 638, 646, 648}};
constexpr Table kH100FwdFull256{{275, 313, 321, 323, 324, kHeldOut}, {470, 546, 580, 581, 580, kHeldOut}, {482, 639, 707, 736, 746, kHeldOut}};
// Forward, causal (head dim 128 and 256 published).
constexpr Table kH100FwdCausal128{{191, 260, 298, 319, 333, kHeldOut}, {315, 410, 484, 518, 529, kHeldOut}, {292, 423, 521, 579, 602, kHeldOut}};
constexpr Table kH100FwdCausal256{{208, 251, 278, 293, 297, kHeldOut}, {308, 391, 450, 483, 497, kHeldOut}, {286, 427, 537, 612, 628, kHeldOut}};
// Backward, non-causal, head dim 128 (published); 64 and 256 scale it by the forward ratio.
constexpr Table kH100BwdFull128{{214, 260, 291, 310, 318, 322}, {305, 408, 465, 499, 518, 516}, {316, 424, 501, 542, 559, 561}};

// A row of TFLOP/s cells at `lens` tokens as fractions of `peak_tflops`, interpolated in log(len)
// (clamped); left-out cells (<= 0) are skipped.
template <std::size_t N>
double interpolate_cells(const std::array<double, N>& lens, const std::array<double, N>& row, double peak_tflops,
                         double len) {
  std::vector<std::pair<double, double>> pts;
  for (std::size_t i = 0; i < N; ++i)
    if (row[i] > 0) pts.emplace_back(lens[i], row[i] / peak_tflops);
  return interpolate_log_x(std::move(pts), std::max(1.0, len));
}

// Blackwell (B200, GB200): cuDNN, TFLOP/s at kBlackwellSeqLens on a GB200 (2,500 TFLOP/s dense BF16
// peak); read as fractions of that peak and applied to B200 at its own peak (the same kernels). One
// head dim (128) is published: every head dim reads it.
constexpr std::array<double, 5> kBlackwellSeqLens{2048, 4096, 8192, 16384, 32768};
using BlackwellRow = std::array<double, 5>;
constexpr double kGb200PeakTflops = 2500;
constexpr BlackwellRow kGb200CudnnFwdFull{1433, 1599, 1771, 1697, 1634};
constexpr BlackwellRow kGb200CudnnFwdCausal{1097, 1408, 1574, 1708, 1622};
constexpr BlackwellRow kGb200CudnnBwdFull{1124, 1350, 1404, 1374, 1262};
constexpr BlackwellRow kGb200CudnnBwdCausal{885, 1148, 1332, 1328, 1226};

double blackwell_cudnn_efficiency(Pass p, bool causal, double len) {
  const BlackwellRow& row = p == Pass::Forward ? (causal ? kGb200CudnnFwdCausal : kGb200CudnnFwdFull)
                                               : (causal ? kGb200CudnnBwdCausal : kGb200CudnnBwdFull);
  return interpolate_cells(kBlackwellSeqLens, row, kGb200PeakTflops, len);
}

// a * (num / den), cell by cell; a cell is left out when any of the three is.
Row scaled(const Row& a, const Row& num, const Row& den) {
  Row r{};
  for (std::size_t i = 0; i < r.size(); ++i)
    r[i] = a[i] > 0 && num[i] > 0 && den[i] > 0 ? a[i] * num[i] / den[i] : kHeldOut;
  return r;
}

Table scaled(const Table& a, const Table& num, const Table& den) {
  return {scaled(a.fa2, num.fa2, den.fa2), scaled(a.cudnn, num.cudnn, den.cudnn), scaled(a.fa3, num.fa3, den.fa3)};
}

const Row& pick(const Table& t, AttentionKernel k) {
  switch (k) {
    case AttentionKernel::FA2: return t.fa2;
    case AttentionKernel::FA3: return t.fa3;
    default: return t.cudnn;
  }
}

// The H100 table of (pass, causal) at head dim 64, 128 or 256.
Table h100_table(Pass p, bool causal, int hd) {
  const Table& fwd_full = hd == 64 ? kH100FwdFull64 : hd == 256 ? kH100FwdFull256 : kH100FwdFull128;
  // Causal head dim 64: the head-dim-128 causal/full ratio applied to head dim 64.
  const Table fwd_causal = hd == 256 ? kH100FwdCausal256
                           : hd == 128 ? kH100FwdCausal128
                                       : scaled(kH100FwdFull64, kH100FwdCausal128, kH100FwdFull128);
  if (p == Pass::Forward) return causal ? fwd_causal : fwd_full;
  // Backward: the published head-dim-128 non-causal row, moved to other head dims and to causal by
  // the forward ratios of the same cells.
  const Table bwd_full = scaled(kH100BwdFull128, fwd_full, kH100FwdFull128);
  return causal ? scaled(bwd_full, fwd_causal, fwd_full) : bwd_full;
}

double interpolate_row(const Row& row, double peak_tflops, double len) {
  return interpolate_cells(kSeqLens, row, peak_tflops, len);
}

bool is_hopper(const std::string& g) { return g.rfind("h100", 0) == 0 || g.rfind("h200", 0) == 0 || g.rfind("h800", 0) == 0; }
bool is_ampere(const std::string& g) { return g.rfind("a100", 0) == 0 || g.rfind("a800", 0) == 0; }

}  // namespace

std::string published_attention_table(const std::string& gpu_name, AttentionKernel family) {
  if (is_hopper(gpu_name))
    return std::string("FlashAttention-3 paper, H100 SXM5 BF16 ") +
           (family == AttentionKernel::FA2 ? "FlashAttention-2" : family == AttentionKernel::FA3 ? "FlashAttention-3" : "cuDNN") +
           " rows";
  if (is_ampere(gpu_name)) return "FlashAttention-2 paper, A100 SXM4 BF16 (FlashAttention-2 for every family)";
  if (is_blackwell_gpu(gpu_name) && family == AttentionKernel::CuDNN)
    return "cudnn-frontend SDPA benchmark, GB200 BF16 cuDNN 9.22 (head dim 128 for every head dim)";
  return "";
}

std::optional<double> published_attention_efficiency(const std::string& gpu_name, AttentionKernel family,
                                                      Pass pass, bool causal, int head_dim, double q_len,
                                                      double kv_len) {
  const bool hopper = is_hopper(gpu_name);
  const bool ampere = is_ampere(gpu_name);
  const double len = std::sqrt(std::max(1.0, q_len) * std::max(1.0, kv_len));
  if (is_blackwell_gpu(gpu_name) && family == AttentionKernel::CuDNN) return blackwell_cudnn_efficiency(pass, causal, len);
  if (!hopper && !ampere) return std::nullopt;
  // Head dims between the published ones: linear in log2(head_dim).
  const double lhd = std::log2(std::clamp(static_cast<double>(head_dim > 0 ? head_dim : 128), 64.0, 256.0));
  const int lo = lhd < 7.0 ? 64 : 128, hi = lhd < 7.0 ? 128 : 256;
  const double w = lhd - std::log2(static_cast<double>(lo));
  auto at = [&](int hd) {
    if (hopper) return interpolate_row(pick(h100_table(pass, causal, hd), family), 989.0, len);
    // A100: FA2 on H100 has the same length shape as FA2 on A100; FA2's paper gives the A100 plateau
    // at head dim 128 (forward 0.73, backward 0.63 of 312 TFLOP/s). cuDNN and "fa3" use FA2 there.
    const Table t = h100_table(pass, causal, hd);
    const Table ref = h100_table(pass, false, 128);
    const double plateau = pass == Pass::Forward ? 0.73 : 0.63;
    return interpolate_row(t.fa2, ref.fa2[5] / plateau, len);
  };
  return (1.0 - w) * at(lo) + w * at(hi);
}

}  // namespace hcpsim
