// cp_comm_type p2p: the flat KV ring over each CP group (docs/schedules.md "p2p ring"); its builders
// are in a2a_p2p.cpp, the ring itself in p2p_ring.cpp.
#include "engine/schedule/a2a_p2p.h"
#include "engine/schedule/p2p_ring.h"
#include "engine/schedule/schedule_descriptor.h"
#include "engine/schedule/schedule_text.h"

namespace hcpsim::schedule {
namespace {

std::size_t tasks(const RankLayout& layout, Pass pass) {
  return ring_tasks_per_rank(static_cast<std::size_t>(layout.cp()), pass == Pass::Forward);
}

double steps(const Scenario& s) { return s.cp(); }

CpBufferBytes buffers(const Scenario& s) {
  const CpBufferTerms b = cp_buffer_terms(s);
  const int cp = s.cp();
  return {.forward_bytes = cp * b.m_kv + cp * (b.t_q + b.lse),   // R KV buffers + R partial outputs/LSEs
          .backward_bytes = 2.0 * (2.0 * b.m_kv)};               // KV + dKV ping-pong
}

std::string explain(const ExplainFacts& f) {
  std::string why = "flat p2p ring of " + std::to_string(f.cp);
  if (f.placement_known)
    why += " (" + std::to_string(f.ring_intra_hops) + " of " + std::to_string(f.ring_hops) + " hops inside a node)";
  why += f.a2a_possible ? ", its KV transfers overlap with attention"
                        : "; pure a2a is impossible: " + f.heads + " < cp " + std::to_string(f.cp);
  return why;
}

int kv_ring_ranks(const Scenario& s) { return s.cp() >= 2 ? s.cp() : 0; }

// The flat ring's block: K and V of the rank's s = S / cp tokens (half-chunk c = s / 2, as built).
double kv_ring_block_bytes(const Scenario& s) {
  const Sizes z = sizes_of(s);
  return ring_kv_block_bytes(z, z.g_t, z.s / 2);
}

}  // namespace

extern const ScheduleDescriptor kP2pSchedule = {
    .kind = CpCommType::P2P, .name = "p2p", .summary =
        "K/V passed around a ring of the CP group, overlapped with the attention of the chunk at "
        "hand",
    .ring = true, .planner_flat = true, .build_forward = build_p2p_forward, .build_backward = build_p2p_backward,
    .tasks_per_rank = tasks, .steps_per_rank = steps, .buffers = buffers, .explain = explain,
    .kv_ring_ranks = kv_ring_ranks, .kv_ring_block_bytes = kv_ring_block_bytes, .kv_ring_group = GroupKind::CP};

}  // namespace hcpsim::schedule
