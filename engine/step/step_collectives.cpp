#include "engine/step/step_collectives.h"

#include <utility>

#include "engine/analytic/collective_time.h"

namespace hcpsim::step {

double ring_s(const RouteModel& routes, TaskKind kind, const std::vector<int>& group, double bytes_per_rank) {
  if (group.size() < 2 || bytes_per_rank <= 0) return 0.0;
  CommOp op;
  op.kind = kind;
  op.group = GroupKind::DP_CP;
  op.ranks.assign(group.begin(), group.end());
  op.bytes_per_rank = bytes_per_rank;
  return ring_collective_seconds(op, routes);
}

double comm_load(const CostModel& cost, TaskKind kind, const std::vector<int>& ranks, double bytes_per_rank) {
  if (ranks.size() < 2 || bytes_per_rank <= 0) return 0.0;
  TaskGraph g;
  Task t;
  t.kind = kind;
  t.rank = ranks.front();
  t.bytes = bytes_per_rank;
  t.comm = 0;
  CommOp op;
  op.kind = kind;
  op.ranks.assign(ranks.begin(), ranks.end());
  if (kind == TaskKind::SendRecv) op.transfers = {{ranks[0], ranks[1], bytes_per_rank}};
  else op.bytes_per_rank = bytes_per_rank;
  op.tasks = {g.add_task(t, "step")};
  g.add_comm(std::move(op));
  return cost.comm_compute_load(g, g.task(0));
}

double launch_s(const CostModel& cost, TaskKind kind) {
  Task t;
  t.kind = kind;
  return cost.comm_overhead_s(t);
}

}  // namespace hcpsim::step
