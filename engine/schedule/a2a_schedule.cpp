// cp_comm_type a2a (Ulysses): all-to-alls of Q, K, V and O over the whole CP group (docs/schedules.md
// "a2a / Ulysses"); its builder is in a2a_ulysses.cpp.
#include "engine/schedule/a2a_ulysses.h"
#include "engine/schedule/schedule_descriptor.h"
#include "engine/schedule/schedule_text.h"

namespace hcpsim::schedule {
namespace {

void forward(ScheduleContext& ctx) { build_a2a_forward(ctx, GroupKind::CP, Stream::NcclCp); }
void backward(ScheduleContext& ctx) { build_a2a_backward(ctx, GroupKind::CP, Stream::NcclCp); }

std::size_t tasks(const RankLayout&, Pass) { return kA2aTasksPerRank; }

double steps(const Scenario&) { return 3; }

CpBufferBytes buffers(const Scenario& s) {
  const CpBufferTerms b = cp_buffer_terms(s);
  return {.forward_bytes = b.a2a_staging, .backward_bytes = b.a2a_staging};
}

std::string explain(const ExplainFacts& f) {
  std::string why = "pure a2a over " + std::to_string(f.cp) + " ranks (" + f.heads + ")";
  if (f.placement_known) why += f.a2a_intra ? ", inside the node" : ", crossing nodes";
  return why;
}

}  // namespace

extern const ScheduleDescriptor kA2aSchedule = {
    .kind = CpCommType::A2A, .name = "a2a", .summary =
        "all-to-all of Q, K and V from sequence shards to head shards, attention over the whole "
        "sequence, all-to-all of the output back",
    .a2a = A2aLevel::WholeCp, .planner_flat = true, .build_forward = forward, .build_backward = backward,
    .tasks_per_rank = tasks, .steps_per_rank = steps, .buffers = buffers, .explain = explain};

}  // namespace hcpsim::schedule
