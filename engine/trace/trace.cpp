#include "engine/trace/trace.h"

#include <algorithm>

namespace hcpsim {

// Peers of a communication task (docs/metrics.md "Trace"): SendRecv lists the ranks this task
// sends to; a collective lists the other members in group order, starting after this rank, so that
// peers[0] is its successor on the NCCL ring.
void append_peers(const TaskGraph& g, const Task& t, std::vector<std::int32_t>& peers) {
  if (t.comm == kNone || t.comm >= g.comms().size()) return;
  const CommOp& op = g.comms()[t.comm];
  if (op.kind == TaskKind::SendRecv) {
    for (const Transfer& x : op.transfers)
      if (x.src == t.rank && x.dst != t.rank &&
          std::find(peers.begin(), peers.end(), x.dst) == peers.end())
        peers.push_back(x.dst);
    return;
  }
  const auto n = op.ranks.size();
  std::size_t self = n;
  for (std::size_t i = 0; i < n; ++i)
    if (op.ranks[i] == t.rank) self = i;
  if (self == n) return;
  for (std::size_t k = 1; k < n; ++k) peers.push_back(op.ranks[(self + k) % n]);
}

TraceEvent make_event(const TaskGraph& g, const Task& t, double start_s, double end_s) {
  TraceEvent e;
  static_cast<EventFacts&>(e) = facts_of_task(g.id_of(t), t, start_s, end_s);
  e.name = g.display_name(t);
  if (is_communication(t.kind)) append_peers(g, t, e.peers);
  return e;
}

void TraceSink::record_task(const TaskGraph& g, const Task& t, double start_s, double end_s) {
  record(make_event(g, t, start_s, end_s));
}

}  // namespace hcpsim
