#pragma once
// all_gather mode (TE AttnFuncWithCPAndKVAllGather, docs/schedules.md) on the flat CP group.
#include "engine/schedule/schedule_context.h"

namespace hcpsim::schedule {

// KV prefix length (tokens) seen by Q chunk `step` (0: C_r, 1: C_{2cp-1-r}) of CP index r; c = S/(2cp).
std::int64_t all_gather_kv_len(int step, int r, int cp, std::int64_t c, bool causal);

void build_all_gather_forward(ScheduleContext& ctx);
void build_all_gather_backward(ScheduleContext& ctx);

}  // namespace hcpsim::schedule
