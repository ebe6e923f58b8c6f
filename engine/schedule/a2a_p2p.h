#pragma once
// Hierarchical a2a+p2p (docs/schedules.md "a2a+p2p") and flat p2p ("p2p ring"), composed from the a2a and ring
// builders, plus plain local attention (cp = 1, or the silent-disable pitfall of docs/schedules.md).
#include "engine/schedule/schedule_context.h"

namespace hcpsim::schedule {

// Flat p2p: the ring over the CP groups, R = cp.
void build_p2p_forward(ScheduleContext& ctx);
void build_p2p_backward(ScheduleContext& ctx);

// a2a+p2p: a2a on HCP_A2A groups, ring on HCP_P2P groups; A = 1 falls back to p2p on the p2p
// groups, P = 1 to a2a on the a2a groups (as TE does). Throws without hierarchical sizes.
void build_a2a_p2p_forward(ScheduleContext& ctx);
void build_a2a_p2p_backward(ScheduleContext& ctx);

// Each rank attends only to its local s tokens as one causal sequence, no communication.
void build_local_forward(ScheduleContext& ctx);
void build_local_backward(ScheduleContext& ctx);

}  // namespace hcpsim::schedule
