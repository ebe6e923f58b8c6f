#include "synthetic_hcp_graph.h"

#include <vector>

namespace hcpsim::bench {

namespace {

Task task_on(int rank, TaskKind kind, Stream stream, int layer) {
  Task t;
  t.rank = rank;
  t.kind = kind;
  t.stream = stream;
  t.layer = static_cast<std::int16_t>(layer);
  return t;
}

std::vector<TaskId> add_collective(TaskGraph& g, TaskKind kind, const std::vector<int>& ranks, double bytes, int layer,
                                   const char* label) {
  CommOp op;
  op.kind = kind;
  op.group = GroupKind::HCP_A2A;
  op.ranks = ranks;
  op.bytes_per_rank = bytes;
  const auto idx = static_cast<std::uint32_t>(g.comms().size());
  for (int r : ranks) {
    Task t = task_on(r, kind, Stream::NcclA2A, layer);
    t.comm = idx;
    t.bytes = bytes * (static_cast<double>(ranks.size()) - 1) / static_cast<double>(ranks.size());
    op.tasks.push_back(g.add_task(t, label));
  }
  g.add_comm(op);
  return g.comms()[idx].tasks;
}

}  // namespace

TaskGraph make_synthetic_hcp_forward(const HcpShape& s) {
  TaskGraph g;
  const int A = s.a2a, P = s.ring, world = A * P;
  g.world_size = world;
  g.layers = s.layers;
  std::vector<TaskId> last(static_cast<std::size_t>(world), kNone);   // last task of each rank
  auto chain = [&](int rank, TaskId t) {
    auto& l = last[static_cast<std::size_t>(rank)];
    if (l != kNone) g.add_dep(l, t);
    l = t;
  };
  for (int layer = 0; layer < s.layers; ++layer) {
    for (int grp = 0; grp < P; ++grp) {   // a2a groups: contiguous blocks of A ranks
      std::vector<int> ranks;
      for (int a = 0; a < A; ++a) ranks.push_back(grp * A + a);
      auto tasks = add_collective(g, TaskKind::AllToAll, ranks, s.a2a_bytes, layer, "a2a_qkv");
      for (int i = 0; i < A; ++i) chain(ranks[static_cast<std::size_t>(i)], tasks[static_cast<std::size_t>(i)]);
    }
    std::vector<TaskId> prev_recv(static_cast<std::size_t>(world), kNone);
    for (int step = 0; step < P; ++step) {
      for (int r = 0; r < world; ++r) {
        Task t = task_on(r, TaskKind::AttentionForward, Stream::Cp, layer);
        t.step = step;
        t.flops = s.attn_s * 1e12;
        const TaskId id = g.add_task(t, "attn");
        if (prev_recv[static_cast<std::size_t>(r)] != kNone) g.add_dep(prev_recv[static_cast<std::size_t>(r)], id);
        chain(r, id);
      }
      if (step == P - 1) break;
      for (int a = 0; a < A; ++a) {   // one SendRecv op per ring and step
        CommOp op;
        op.kind = TaskKind::SendRecv;
        op.group = GroupKind::HCP_P2P;
        const auto idx = static_cast<std::uint32_t>(g.comms().size());
        for (int p = 0; p < P; ++p) {
          const int r = p * A + a, next = ((p + 1) % P) * A + a;
          op.ranks.push_back(r);
          op.transfers.push_back({r, next, s.kv_bytes});
          Task t = task_on(r, TaskKind::SendRecv, Stream::NcclP2P, layer);
          t.step = step;
          t.comm = idx;
          t.bytes = s.kv_bytes;
          const TaskId id = g.add_task(t, "kv_send_recv");
          op.tasks.push_back(id);
          auto& pr = prev_recv[static_cast<std::size_t>(r)];
          if (pr != kNone) g.add_dep(pr, id);   // forwards the KV it received last step
          else if (last[static_cast<std::size_t>(r)] != kNone) g.add_dep(last[static_cast<std::size_t>(r)], id);
          pr = id;
        }
        g.add_comm(op);
      }
    }
    for (int r = 0; r < world; ++r) {   // the output waits for the last receive too
      auto& pr = prev_recv[static_cast<std::size_t>(r)];
      if (pr != kNone && pr != last[static_cast<std::size_t>(r)]) g.add_dep(pr, last[static_cast<std::size_t>(r)]);
    }
    for (int grp = 0; grp < P; ++grp) {
      std::vector<int> ranks;
      for (int a = 0; a < A; ++a) ranks.push_back(grp * A + a);
      auto tasks = add_collective(g, TaskKind::AllToAll, ranks, s.a2a_bytes, layer, "a2a_out");
      for (int i = 0; i < A; ++i) chain(ranks[static_cast<std::size_t>(i)], tasks[static_cast<std::size_t>(i)]);
    }
  }
  return g;
}

}  // namespace hcpsim::bench
