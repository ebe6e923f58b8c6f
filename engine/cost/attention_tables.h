#pragma once
// Published attention-kernel throughput (term `attention_shapes`, docs/metrics.md section 9.5):
// fraction of the GPU's dense bf16 peak that a kernel family reaches, by pass, mask, head dim and
// sequence length, read from the FlashAttention-2 and FlashAttention-3 papers' benchmark figures.
#include <optional>
#include <string>

#include "engine/graph/task_graph.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {

// Efficiency (fraction of bf16 peak) of one attention kernel of `family` on GPU preset `gpu_name`
// with query length `q_len` and key length `kv_len` (tokens), interpolated in log(sqrt(q * kv))
// between the published sequence lengths (512 .. 16k, clamped) and in log2(head_dim) between the
// published head dims (64, 128, 256, clamped). nullopt when no table covers the GPU (then the
// cost model keeps its plateau formula). A100-class GPUs have no FA3: fa3 falls back to fa2.
// The longest published sequence length (tokens): a table's plateau is its value there.
constexpr double kPublishedAttentionLongest_tokens = 16384;
// The table published_attention_efficiency reads for this GPU and family, in words ("" when none).
std::string published_attention_table(const std::string& gpu_name, AttentionKernel family);

std::optional<double> published_attention_efficiency(const std::string& gpu_name, AttentionKernel family,
                                                     Pass pass, bool causal, int head_dim, double q_len,
                                                     double kv_len);

}  // namespace hcpsim
