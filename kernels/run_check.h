#pragma once
// `hcpsim run FILE --check`, the parts every device shares (no MPI, no CUDA): the size limits, the
// tolerance, the single-process check of --emulate-ranks, and the report. The comparison itself is
// reference::compare_with_dense (the measure of `hcpsim verify`), whichever device computed the
// outputs: the CPU runner's reference kernels, or bf16 attention tiles on a GPU
// (bf16_tile_kernels.h).
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/reference/tile_kernels.h"
#include "engine/reference/verify.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::kernels {

// Values per tensor a real-data run holds: model.seq_length x num_attention_heads x kv_channels x
// micro_batch_size, at most 2^24.
constexpr std::int64_t kCpuDeviceMaxValues = std::int64_t{1} << 24;
// Multiply-adds of one dense forward pass of the check's reference, seq_length^2 x heads x
// kv_channels x micro_batch_size, at most 2^32 (the dense forward and backward run in double on
// one CPU core: tens of seconds at the limit).
constexpr std::int64_t kCheckMaxDenseMacs = std::int64_t{1} << 32;

// Tolerance of the max relative error: 1e-4 for double-precision tiles; 3e-2 for bf16 tiles (GPU),
// whose inputs and per-tile outputs are rounded to 8 significant bits (a relative step of 2^-8):
// the bound the GPU kernel tests accept for one tile's gradients.
double default_check_tolerance(bool bf16_tiles);

// Throws std::runtime_error naming the field, the limit and overrides that fit when the scenario
// cannot run with real data: more values than kCpuDeviceMaxValues; with `check`, more work than
// kCheckMaxDenseMacs, or no forward and backward pass; with `bf16_tiles` (GPU), a head dim the
// kernels lack (64 or 128) or DSA sparse attention.
void require_real_data_size(const Scenario& s, bool check, bool bf16_tiles);

// Every rank of the scenario in this process (the reference executor, one thread), its attention
// tiles on `tiles` (nullptr: the reference kernels), compared with dense attention.
reference::VerifyResult check_in_one_process(const Scenario& s, reference::TileKernels* tiles, std::uint64_t seed,
                                             double tolerance);

// "check: max relative error 3.1e-03 (O .., dQ .., dK .., dV ..; tolerance 3e-02)"; a second line
// "check: DETAIL" when the comparison found a problem.
std::string check_report_text(const reference::VerifyResult& c);
// {"max_rel_error": X, "out", "dq", "dk", "dv", "tolerance", "ok", "tiles"?, "detail"?}
nlohmann::json check_report_json(const reference::VerifyResult& c, const std::string& tiles);

}  // namespace hcpsim::kernels
