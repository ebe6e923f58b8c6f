#pragma once
// The KV ring of AttnFuncWithCPAndKVP2P (docs/schedules.md "p2p ring"), on any set of rings:
// flat p2p (rings = CP groups, R = cp) or the level-1 rings of a2a+p2p (rings = HCP_P2P groups,
// R = P). Inputs and outputs are named buffers so a2a+p2p can put the a2a level around it.
#include "engine/schedule/schedule_context.h"

namespace hcpsim::schedule {

struct RingIO {
  GroupKind group = GroupKind::CP;  // CP (flat) or HCP_P2P (level 1)
  int heads = 0;                    // query heads per rank at ring level (h_t / A)
  int kv_heads = 0;                 // KV heads per rank at ring level (g_t / A)
  std::int64_t c = 0;               // half-chunk length at ring level, tokens
  BufName q = BufName::Q, k = BufName::K, v = BufName::V, out = BufName::Out;
  BufName dout = BufName::DOut, dq = BufName::DQ;
  bool split_dkv = true;            // backward writes dk/dv separately (flat) or one dkv (a2a+p2p)
  BufName dk = BufName::DK, dv = BufName::DV, dkv = BufName::LevelDKV;
};

// Forward section of ring step i for ring rank r : diag i=0, lower 1<=i<=r, upper i>r.
MaskSection ring_forward_section(int i, int r, bool causal);
// Backward section of step i: diag i=R-1, lower i>=R-r-1, upper otherwise.
MaskSection ring_backward_section(int i, int r, int R, bool causal);
// Bytes of the K/V block one ring rank holds and forwards (2c tokens of kv_heads heads).
double ring_kv_block_bytes(const Sizes& z, int kv_heads, std::int64_t c);
// Bytes one rank sends in backward ring step i: M_kv (i=0), 2*M_kv (0<i<R-1), M_kv (i=R-1).
double ring_backward_message_bytes(int i, int R, double m_kv_bytes);

// Appends the forward ring of every group of kind io.group for the context's layer.
void build_ring_forward(ScheduleContext& ctx, const RingIO& io);
// Appends the backward ring (needs the forward of the same layer for payloads).
void build_ring_backward(ScheduleContext& ctx, const RingIO& io);

}  // namespace hcpsim::schedule
