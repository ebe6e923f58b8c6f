#pragma once
// One NCCL collective call (all-gather, reduce-scatter, all-reduce, all-to-all) as the analytic model
// times it alone (engine/analytic/collective_time.h), split so that `calibrate --from-trace` can solve
// for the calibration table's efficiency:
//   time = latency_s + bandwidth_s,   bandwidth_s proportional to 1 / efficiency,
// where efficiency is the table value the model reads for (op, link class, message_bytes): the op's
// plateau for a ring with the `nccl_ring_latency` term, its curve at the message otherwise. A measured
// time t gives efficiency x bandwidth_s / (t - latency_s).
// The bus bandwidth of a call follows NCCL's convention (nccl-tests' busBw): algBw = size / time, with
// size the whole buffer (all-gather: output, reduce-scatter: input, all-reduce: the buffer, all-to-all:
// what one rank sends), times (n-1)/n for all-gather, reduce-scatter and all-to-all, 2(n-1)/n for
// all-reduce.
#include "engine/cost/route.h"
#include "engine/graph/task_graph.h"

namespace hcpsim {

struct CollectiveModelTime {
  TaskKind op = TaskKind::AllGather;
  LinkClass link_class = LinkClass::IntraNode;   // of the link that sets the time
  double message_bytes = 0;    // the table's key: one flow's message (shard, or bytes / n for a2a and all-reduce)
  double efficiency = 0;       // the table value the model used
  double latency_s = 0;        // the part that does not scale with the efficiency
  double bandwidth_s = 0;      // the part that does
  int ranks = 0;               // members of the call
  double nccl_size_bytes = 0;  // NCCL's size of the call (see above)
  double bus_factor = 0;       // NCCL's busBw / algBw factor
  // The call also crosses links of the other class, which do not set its time: the trace cannot
  // tell their efficiency, and the table value the model reads for them (op, that class, message).
  bool other_class = false;
  double other_efficiency = 0;
};

// Throws std::invalid_argument when `t` is not a collective of `g` with at least two members and bytes.
CollectiveModelTime collective_model_time(const TaskGraph& g, const Task& t, const RouteModel& routes);

}  // namespace hcpsim
