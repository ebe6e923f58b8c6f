#pragma once
// The all-to-all exchanges of AttnFuncWithCPAndQKVOA2A (docs/schedules.md "a2a / Ulysses"), reusable on any group kind:
// the flat CP group (cp_comm_type a2a) or the level-0 groups of a2a+p2p.
#include <string>
#include <vector>

#include "engine/schedule/schedule_context.h"

namespace hcpsim::schedule {

// One tensor moved by a pipelined a2a exchange.
struct A2AItem {
  std::string name;        // "q", "k", "v", "o", "do", "dq", "dk", "dv" (labels perm_<name> ...)
  BufName in = BufName::Q;
  BufName out = BufName::LevelQ;
  int heads = 0;           // heads per rank on the sequence-sharded side (h_t or g_t)
  int dim = 0;             // head dim of this tensor
  int col0 = 0;            // first column read from `in` (dK/dV live in one dKV buffer)
  int tensor_id = 0;       // distinct per tensor in a layer (staging buffer version)
};

// Before attention: per tensor Perm (head split, main), A2A (nccl), Reord (chunk reorder, cp);
// issue order Perm_0 A2A_0 Perm_1 A2A_1 Reord_0 Perm_2 A2A_2 Reord_1 Reord_2; main waits cp.
void build_a2a_before(ScheduleContext& ctx, GroupKind group, Stream nccl, const std::vector<A2AItem>& items);
// After attention: Perm (chunks back to per-destination pairs, main), A2A, Reord (head merge, cp).
void build_a2a_after(ScheduleContext& ctx, GroupKind group, Stream nccl, const std::vector<A2AItem>& items);

// Pure a2a mode (Ulysses) on `group` (CP, or HCP_A2A when a2a+p2p has P = 1).
void build_a2a_forward(ScheduleContext& ctx, GroupKind group, Stream nccl);
void build_a2a_backward(ScheduleContext& ctx, GroupKind group, Stream nccl);

}  // namespace hcpsim::schedule
