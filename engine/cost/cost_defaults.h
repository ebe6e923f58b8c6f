#pragma once
// Default constants of the cost model's fall-off curves. Where each number comes from (public
// FlashAttention-3 and NCCL measurements) is in docs/metrics.md, section "Default constants".
namespace hcpsim::cost_defaults {

// Attention: eff(q, kv) = plateau * q/(q + L0) * kv/(kv + L0). Fitted to FlashAttention-3 BF16,
// head dim 128, H100 SXM5 (512..16k tokens): forward L0 ~ 80 tokens, backward L0 ~ 150 tokens.
constexpr double kAttentionForwardHalfLen_tokens = 80.0;
constexpr double kAttentionBackwardHalfLen_tokens = 150.0;

// Every compute/copy kernel pays this fixed cost (launch + tail), seconds.
constexpr double kKernelOverhead_s = 2e-6;

// Links: eff(m) = plateau * m / (m + m_half): the message size that reaches half the plateau.
constexpr double kIntraNodeHalfBandwidth_bytes = 1024.0 * 1024.0;   // NVLink/NVSwitch, NCCL p2p
constexpr double kInterNodeHalfBandwidth_bytes = 256.0 * 1024.0;    // 400G InfiniBand, NCCL p2p

}  // namespace hcpsim::cost_defaults
