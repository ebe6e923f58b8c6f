#include "engine/schedule/hp_common.h"

#include <stdexcept>

#include "engine/schedule/comm_op.h"

namespace hcpsim::schedule {

HpShape hp_shape(const ScheduleContext& ctx) {
  HpShape h;
  h.u = ctx.layout.hp_ulysses();
  h.co = ctx.layout.hp_colossal();
  h.L = ctx.sz.s * h.u;
  if (ctx.sz.h_t % h.u != 0 || ctx.sz.g_t % h.u != 0)
    throw std::invalid_argument("hyperparallel: num_heads (" + std::to_string(ctx.sz.h_t % h.u ? ctx.sz.h_t : ctx.sz.g_t) +
                                ") must be divisible by ulysses_degree (" + std::to_string(h.u) + ").");
  h.heads = ctx.sz.h_t / h.u;
  h.kv_heads = ctx.sz.g_t / h.u;
  return h;
}

int hp_colossal_index(const ScheduleContext& ctx, int rank) {
  const auto& g = ctx.layout.group_of(GroupKind::HP_COLOSSAL, rank);
  for (std::size_t i = 0; i < g.size(); ++i)
    if (g[i] == rank) return static_cast<int>(i);
  return 0;
}

double hp_bytes(const ScheduleContext& ctx, std::int64_t tokens, int heads, int dim) {
  return static_cast<double>(ctx.sz.b) * static_cast<double>(tokens) * heads * dim * ctx.sz.e;
}

std::vector<std::int64_t> hp_tile_args(const AttentionShape& a, bool causal) {
  return {0, a.q_len, 0, a.kv_len, causal ? 1 : 0};
}

namespace {

// One collective per group of `kind`; each member's task gets `payload(rank)`.
template <typename PayloadFn>
void collective(ScheduleContext& ctx, GroupKind kind, TaskKind task_kind, Stream nccl, const std::string& label,
                double bytes_per_rank, double sent, PayloadOp op, PayloadFn in_out) {
  const auto& groups = ctx.layout.groups(kind);
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    CommOp c = comm_op(task_kind, kind, gi);
    c.bytes_per_rank = bytes_per_rank;
    for (int rank : groups[gi]) {
      const TaskId t = ctx.add_nccl(rank, task_kind, nccl, Stream::Main, label, -1, sent);
      const auto [in, out] = in_out(rank);
      ctx.payload(t, op, {in}, {out});
      c.ranks.push_back(rank);
      c.tasks.push_back(t);
    }
    ctx.add_comm(std::move(c));
  }
}

// One all-to-all of `it` on the hp_ulysses groups: the local permutation into the send slots
// (`permute`: by heads or by sequence), then the all-to-all.
void a2a_issue(ScheduleContext& ctx, const HpA2AItem& it, PayloadOp permute) {
  const int u = ctx.layout.hp_ulysses();
  const double T = hp_bytes(ctx, ctx.sz.s, it.heads, it.dim);
  hp_each_rank(ctx, [&](int rank, int, int) {
    const TaskId t = ctx.add(rank, TaskKind::Copy, Stream::Main, "perm_" + it.name, -1, 0, 2 * T);
    ctx.payload(t, permute, {ctx.key(it.in, it.in_version)}, {ctx.key(BufName::Send, it.slot)}, {u, 0, it.dim});
  });
  collective(ctx, GroupKind::HP_ULYSSES, TaskKind::AllToAll, Stream::NcclA2A, "a2a_" + it.name, T, T * (u - 1) / u,
             PayloadOp::AllToAll,
             [&](int) { return std::pair{ctx.key(BufName::Send, it.slot), ctx.key(BufName::Recv, it.slot)}; });
}

// After the last all-to-all queued on each rank: the received slots of `it` reordered into its
// output (`reorder`).
void a2a_reorder(ScheduleContext& ctx, const HpA2AItem& it, PayloadOp reorder) {
  const int u = ctx.layout.hp_ulysses();
  const double T = hp_bytes(ctx, ctx.sz.s, it.heads, it.dim);
  hp_each_rank(ctx, [&](int rank, int, int) {
    ctx.wait(rank, Stream::Main, ctx.last(rank, Stream::NcclA2A));
    const TaskId t = ctx.add(rank, TaskKind::Copy, Stream::Main, "reord_" + it.name, -1, 0, 2 * T);
    ctx.payload(t, reorder, {ctx.key(BufName::Recv, it.slot)}, {ctx.key(it.out, it.out_version)}, {u});
  });
}

}  // namespace

void hp_a2a_to_heads_issue(ScheduleContext& ctx, const HpA2AItem& it) { a2a_issue(ctx, it, PayloadOp::HeadSplit); }

// The last all-to-all queued: this tensor's, or (async, finishing after every issue) a later one,
// which completes after it in stream order.
void hp_a2a_to_heads_finish(ScheduleContext& ctx, const HpA2AItem& it) {
  a2a_reorder(ctx, it, PayloadOp::SlotsToSequence);
}

void hp_a2a_to_sequence(ScheduleContext& ctx, const HpA2AItem& it) {
  a2a_issue(ctx, it, PayloadOp::SequenceToSlots);
  a2a_reorder(ctx, it, PayloadOp::HeadMerge);
}

void hp_gather_issue(ScheduleContext& ctx, const HpGatherItem& it) {
  const HpShape h = hp_shape(ctx);
  const double shard = hp_bytes(ctx, h.L, it.heads > 0 ? it.heads : h.kv_heads, it.dim);
  collective(ctx, GroupKind::HP_COLOSSAL, TaskKind::AllGather, Stream::NcclCp, "all_gather_" + it.name, shard,
             (h.co - 1) * shard, PayloadOp::AllGather, [&](int) {
               return std::pair{ctx.key(it.in, it.in_version), ctx.key(BufName::Gathered, it.gathered_version)};
             });
}

void hp_gather_finish(ScheduleContext& ctx, const HpGatherItem& it) {
  const HpShape h = hp_shape(ctx);
  const double full = hp_bytes(ctx, h.L * h.co, it.heads > 0 ? it.heads : h.kv_heads, it.dim);
  hp_each_rank(ctx, [&](int rank, int, int) {
    // The last all-gather queued on nccl:cp: this one, or (async) a later one, which follows it in stream order.
    ctx.wait(rank, Stream::Main, ctx.last(rank, Stream::NcclCp));
    const TaskId t = ctx.add(rank, TaskKind::Copy, Stream::Main, "reord_" + it.name, -1, 0, 2 * full);
    ctx.payload(t, PayloadOp::SlotsToSequence, {ctx.key(BufName::Gathered, it.gathered_version)},
                {ctx.key(BufName::FullKV, it.full_version)}, {h.co});
  });
}

void hp_reduce_scatter(ScheduleContext& ctx, const std::string& name, BufName in, int in_version, int dim, int slot,
                       BufName out, int out_version) {
  const HpShape h = hp_shape(ctx);
  const double shard = hp_bytes(ctx, h.L, h.kv_heads, dim);
  hp_each_rank(ctx, [&](int rank, int, int) {
    const TaskId t = ctx.add(rank, TaskKind::Copy, Stream::Main, "reord_" + name, -1, 0, 2 * shard * h.co);
    ctx.payload(t, PayloadOp::SequenceToSlots, {ctx.key(in, in_version)}, {ctx.key(BufName::Send, slot)},
                {h.co, 0, dim});
  });
  collective(ctx, GroupKind::HP_COLOSSAL, TaskKind::ReduceScatter, Stream::NcclCp, "reduce_scatter_" + name, shard,
             (h.co - 1) * shard, PayloadOp::ReduceScatter,
             [&](int) { return std::pair{ctx.key(BufName::Send, slot), ctx.key(out, out_version)}; });
  hp_each_rank(ctx, [&](int rank, int, int) { ctx.wait(rank, Stream::Main, ctx.last(rank, Stream::NcclCp)); });
}

void hp_exchange(ScheduleContext& ctx, const std::string& label, GroupKind group, BufName in, int in_version,
                 BufName out, int out_version, double bytes) {
  for (const auto& grp : ctx.layout.groups(group)) {
    const int n = static_cast<int>(grp.size());
    for (int i = 0; i < n; ++i) {
      const int j = n - 1 - i;
      const int rank = grp[static_cast<std::size_t>(i)], peer = grp[static_cast<std::size_t>(j)];
      if (i == j) {   // the middle rank of an odd group is its own peer
        const TaskId t = ctx.add(rank, TaskKind::Copy, Stream::Main, label, -1, 0, 2 * bytes);
        ctx.payload(t, PayloadOp::Add, {ctx.key(in, in_version)}, {ctx.key(out, out_version)});
        continue;
      }
      if (j < i) continue;   // each pair once
      CommOp c = comm_op(TaskKind::SendRecv, group, static_cast<std::size_t>(ctx.layout.group_index_of(group, rank)));
      c.bytes_per_rank = bytes;
      c.transfers = {{rank, peer, bytes}, {peer, rank, bytes}};
      for (int r : {rank, peer}) {
        const int other = r == rank ? peer : rank;
        const TaskId t = ctx.add_nccl(r, TaskKind::SendRecv, Stream::NcclP2P, Stream::Main, label, -1, bytes);
        ctx.payload(t, PayloadOp::SendRecv, {ctx.key(in, in_version)}, {ctx.key(out, out_version)}, {other, other});
        ctx.wait(r, Stream::Main, t);
        c.ranks.push_back(r);
        c.tasks.push_back(t);
      }
      ctx.add_comm(std::move(c));
    }
  }
}

}  // namespace hcpsim::schedule
