// cp_comm_type all_gather: K and V of the whole sequence gathered on every CP rank (docs/schedules.md
// "all_gather"); its builder is in all_gather.cpp.
#include "engine/schedule/all_gather.h"
#include "engine/schedule/schedule_descriptor.h"
#include "engine/schedule/schedule_text.h"

namespace hcpsim::schedule {
namespace {

double steps(const Scenario&) { return 3; }

CpBufferBytes buffers(const Scenario& s) {
  const CpBufferTerms b = cp_buffer_terms(s);
  const int cp = s.cp();
  return {.forward_bytes = cp * b.m_kv,               // full K/V
          .backward_bytes = 2.0 * cp * b.m_kv};       // re-gathered K/V + full-length dK/dV
}

std::string explain(const ExplainFacts& f) {
  std::string why = "all_gather of the full K/V (" + fixed_text(f.full_kv_bytes / kMiB, 0) + " MiB with " + f.heads + ")";
  if (f.placement_known) why += f.a2a_intra ? " inside the node" : " across nodes";
  return why;
}

}  // namespace

extern const ScheduleDescriptor kAllGatherSchedule = {
    .kind = CpCommType::AllGather, .name = "all_gather", .summary =
        "K and V of the whole sequence all-gathered on every CP rank before its attention",
    .planner_flat = true, .build_forward = build_all_gather_forward, .build_backward = build_all_gather_backward,
    .steps_per_rank = steps, .buffers = buffers, .explain = explain};   // task count: not in closed form

}  // namespace hcpsim::schedule
