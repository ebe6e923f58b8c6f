#pragma once
// Test helper: the smallest communication a cost-model test needs, one p2p send/recv call between
// two ranks, built by hand (no schedule builder) so that the test controls every field.
#include <vector>

#include "engine/graph/task_graph.h"

namespace hcpsim::test {

// Rank 0 and rank `peer` exchange `bytes` each way in one send/recv call of ring step `step` (on
// nccl:p2p, label "sr"). Returns the two tasks, rank 0's first.
inline std::vector<TaskId> add_two_rank_sendrecv(TaskGraph& g, int peer, double bytes, int step) {
  CommOp op;
  op.kind = TaskKind::SendRecv;
  for (int r : {0, peer}) {
    Task t;
    t.rank = r;
    t.kind = TaskKind::SendRecv;
    t.stream = Stream::NcclP2P;
    t.bytes = bytes;
    t.step = step;
    t.comm = static_cast<std::uint32_t>(g.comms().size());
    op.ranks.push_back(r);
    op.tasks.push_back(g.add_task(t, "sr"));
  }
  op.transfers = {{0, peer, bytes}, {peer, 0, bytes}};
  const std::vector<TaskId> tasks = op.tasks;
  g.add_comm(std::move(op));
  return tasks;
}

}  // namespace hcpsim::test
