// cp_comm_type a2a+p2p: an all-to-all inside level-0 groups, a KV ring over level-1 groups
// (docs/schedules.md "a2a+p2p"); its builders are in a2a_p2p.cpp.
#include "engine/schedule/a2a_p2p.h"
#include "engine/schedule/p2p_ring.h"
#include "engine/schedule/schedule_descriptor.h"
#include "engine/schedule/schedule_text.h"

namespace hcpsim::schedule {
namespace {

std::size_t tasks(const RankLayout& layout, Pass pass) {
  if (!layout.hierarchical()) return 0;
  const bool fwd = pass == Pass::Forward;
  const auto A = static_cast<std::size_t>(layout.a2a_size()), P = static_cast<std::size_t>(layout.ring_size());
  if (A == 1) return ring_tasks_per_rank(P, fwd);
  if (P == 1) return kA2aTasksPerRank;
  return kA2aExchangeTasksPerRank + ring_tasks_per_rank(P, fwd);
}

double steps(const Scenario& s) {
  const auto& h = s.model.hierarchical_context_parallel_sizes;
  return h.size() == 2 ? h[1] + 2.0 : s.cp();
}

CpBufferBytes buffers(const Scenario& s) {
  const CpBufferTerms b = cp_buffer_terms(s);
  const auto& h = s.model.hierarchical_context_parallel_sizes;
  const int ring = h.size() == 2 && h[1] > 0 ? h[1] : s.cp();
  return {.forward_bytes = b.a2a_staging + ring * b.m_kv + ring * (b.t_q + b.lse),
          .backward_bytes = b.a2a_staging + 2.0 * (2.0 * b.m_kv)};
}

std::string explain(const ExplainFacts& f) {
  std::string why = f.a2a_possible ? "pure a2a would also be possible (" + f.heads + ")"
                                   : "pure a2a is impossible: " + f.heads + " < cp " + std::to_string(f.cp);
  why += "; [" + std::to_string(f.split_a2a) + "," + std::to_string(f.split_ring) + "]";
  if (f.placement_known) {
    why += f.a2a_intra ? " keeps the a2a inside the node" : " puts the a2a across nodes";
    why += f.ring_intra_hops == f.ring_hops ? " and the ring of " + std::to_string(f.split_ring) + " too"
                                            : " and runs a ring of " + std::to_string(f.split_ring) + " across nodes";
  }
  return why;
}

// The level-1 ring of [A, P]: P ranks (A = 1: the flat ring over the same groups); P = 1 is the
// a2a alone and no sizes is refused by the builder: no ring then.
int kv_ring_ranks(const Scenario& s) {
  const auto& h = s.model.hierarchical_context_parallel_sizes;
  return h.size() == 2 && h[1] >= 2 ? h[1] : 0;
}

// Its block as a2a_p2p.cpp builds it: A = 1, the flat ring's (c = s / 2, all KV heads); otherwise
// K and V of 2c = S / P tokens (c = S / (2P)) for the KV heads of one a2a rank (g_t / A).
double kv_ring_block_bytes(const Scenario& s) {
  const Sizes z = sizes_of(s);
  const auto& h = s.model.hierarchical_context_parallel_sizes;
  if (h.size() != 2 || h[0] < 1 || h[1] < 1) return 0.0;
  if (h[0] == 1) return ring_kv_block_bytes(z, z.g_t, z.s / 2);
  return ring_kv_block_bytes(z, z.g_t / h[0], z.S / (2 * h[1]));
}

}  // namespace

extern const ScheduleDescriptor kA2aP2pSchedule = {
    .kind = CpCommType::A2AP2P, .name = "a2a+p2p", .summary =
        "all-to-all inside each level-0 group of hierarchical_context_parallel_sizes [a2a, p2p], "
        "then a KV ring over the level-1 groups",
    .a2a = A2aLevel::FirstLevel, .ring = true, .build_forward = build_a2a_p2p_forward,
    .build_backward = build_a2a_p2p_backward, .tasks_per_rank = tasks, .steps_per_rank = steps, .buffers = buffers,
    .explain = explain, .kv_ring_ranks = kv_ring_ranks, .kv_ring_block_bytes = kv_ring_block_bytes,
    .kv_ring_group = GroupKind::HCP_P2P};

}  // namespace hcpsim::schedule
