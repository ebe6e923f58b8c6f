// cp_comm_type dfa: DistFlashAttn's load-balanced causal ring (docs/schedules.md "DistFlashAttn");
// its builders are in dfa_forward.cpp and dfa_backward.cpp.
#include "engine/schedule/dfa_schedule.h"
#include "engine/schedule/schedule_descriptor.h"
#include "engine/schedule/schedule_text.h"

namespace hcpsim::schedule {
namespace {

double steps(const Scenario& s) { return s.cp() / 2 + 2.0; }

// Two peer buffers each (one filled by the fetch in flight, one read by the kernel): peer K/V,
// peer Q and the partial output with its two fp32 statistics; backward also peer out, dout, lse
// and the dQ/dK/dV deltas that travel back.
CpBufferBytes buffers(const Scenario& s) {
  const CpBufferTerms b = cp_buffer_terms(s);
  const double t_q = b.t_q, t_o = b.t_q, m_kv = b.m_kv, lse = b.lse;
  return {.forward_bytes = 2.0 * (m_kv + t_q + t_o + 2.0 * lse),
          .backward_bytes = 2.0 * (m_kv + t_q + 2.0 * t_o + lse) + 2.0 * (t_q + 2.0 * m_kv)};
}

std::string explain(const ExplainFacts& f) {
  return "DistFlashAttn's balanced causal ring of " + std::to_string(f.cp) + ", idle ranks computing for busy ones";
}

}  // namespace

extern const ScheduleDescriptor kDfaSchedule = {
    .kind = CpCommType::DistFlashAttn, .name = "dfa", .summary =
        "DistFlashAttn: one contiguous chunk per CP rank; ranks with less causal work compute "
        "blocks of busier ranks with their queries fetched",
    .own_shards = true, .build_forward = build_dfa_forward, .build_backward = build_dfa_backward,
    .steps_per_rank = steps, .buffers = buffers, .explain = explain};   // task count: not in closed form

}  // namespace hcpsim::schedule
