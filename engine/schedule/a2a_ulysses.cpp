// a2a (Ulysses, TE AttnFuncWithCPAndQKVOA2A) on a group of size A, member index a.
//
//  before attention, per tensor X in (Q, K, V):            rank a after the exchange holds
//    main: perm_x   [b][s][H][d] -> [A][b][s][H/A][d]      the full level sequence (A*s tokens)
//    nccl: a2a_x    slot j -> member j                      for head block a, in natural order:
//    cp  : reord_x  [A][b][s][H/A][d] -> [b][A*s][H/A][d]   C_first .. C_first+A-1 | late chunks
//  issue order: perm_q a2a_q perm_k a2a_k reord_q perm_v a2a_v reord_k reord_v ; main waits cp
//
//    member 0: [C_0 C_7]  --a2a-->  member 0: heads 0..H/A   [C_0 C_1 C_2 C_3 | C_4 C_5 C_6 C_7]
//    member 1: [C_1 C_6]            member 1: heads H/A..    (same tokens, next head block)
//    ...       (cp = A = 4, chunks C_0..C_7)
//
//  attention: one kernel over the whole sequence (causal top-left, or no mask), on main
//  after attention: main: perm_o (natural -> per-destination chunk pairs), a2a_o, cp: reord_o
//  (merge head blocks), main waits cp. Backward: a2a of dO, attn_bwd, a2a of dQ, dK, dV.
#include "engine/schedule/a2a_ulysses.h"

#include <stdexcept>

#include "engine/schedule/comm_op.h"

namespace hcpsim::schedule {

namespace {

int group_size(const ScheduleContext& ctx, GroupKind group) {
  const auto& groups = ctx.layout.groups(group);
  if (groups.empty()) throw std::invalid_argument(std::string("a2a: the layout has no ") + to_string(group) + " groups");
  return static_cast<int>(groups.front().size());
}

void check_heads(const ScheduleContext& ctx, int A) {
  if (ctx.sz.h_t % A != 0 || ctx.sz.g_t % A != 0)
    throw std::invalid_argument("a2a over " + std::to_string(A) + " ranks needs heads per TP rank divisible by " +
                                std::to_string(A) + " (h_t = " + std::to_string(ctx.sz.h_t) +
                                ", g_t = " + std::to_string(ctx.sz.g_t) + ")");
}

double tensor_bytes(const ScheduleContext& ctx, const A2AItem& it) {
  const auto& z = ctx.sz;
  return static_cast<double>(z.b) * static_cast<double>(z.s) * it.heads * it.dim * z.e;
}

// One pipelined exchange; `before` selects the direction.
void exchange(ScheduleContext& ctx, GroupKind group, Stream nccl, const std::vector<A2AItem>& items, bool before) {
  const auto& groups = ctx.layout.groups(group);
  const int A = group_size(ctx, group);
  const std::int64_t A64 = A;
  auto perm = [&](const A2AItem& it) {
    const double T = tensor_bytes(ctx, it);
    const std::string label = "perm_" + it.name;
    for (const auto& grp : groups)
      for (int rank : grp) {
        const TaskId t = ctx.add(rank, TaskKind::Copy, Stream::Main, label, -1, 0, 2 * T);
        if (ctx.with_payloads())
          ctx.payload(t, before ? PayloadOp::HeadSplit : PayloadOp::NaturalToChunks, {ctx.key(it.in)},
                      {ctx.key(BufName::Send, it.tensor_id)}, {A64, it.col0, it.dim});
      }
  };
  auto a2a = [&](const A2AItem& it) {
    const double T = tensor_bytes(ctx, it);
    const double sent = T * (A - 1) / A;
    const std::string label = "a2a_" + it.name;
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      CommOp op = comm_op(TaskKind::AllToAll, group, gi, static_cast<int>(groups[gi].size()));
      op.bytes_per_rank = T;
      for (int rank : groups[gi]) {
        const TaskId t = ctx.add_nccl(rank, TaskKind::AllToAll, nccl, Stream::Main, label, -1, sent);
        if (ctx.with_payloads())
          ctx.payload(t, PayloadOp::AllToAll, {ctx.key(BufName::Send, it.tensor_id)},
                      {ctx.key(BufName::Recv, it.tensor_id)});
        op.ranks.push_back(rank);
        op.tasks.push_back(t);
      }
      ctx.add_comm(std::move(op));
    }
  };
  // The reorder of `it` on each rank waits for that rank's all-to-all of `it` (a2a_of_rank).
  auto reord = [&](const A2AItem& it, const std::vector<TaskId>& a2a_of_rank) {
    const double T = tensor_bytes(ctx, it);
    const std::string label = "reord_" + it.name;
    for (const auto& grp : groups)
      for (int rank : grp) {
        ctx.wait(rank, Stream::Cp, a2a_of_rank[static_cast<std::size_t>(rank)]);
        const TaskId t = ctx.add(rank, TaskKind::Copy, Stream::Cp, label, -1, 0, 2 * T);
        if (ctx.with_payloads())
          ctx.payload(t, before ? PayloadOp::ChunksToNatural : PayloadOp::HeadMerge,
                      {ctx.key(BufName::Recv, it.tensor_id)}, {ctx.key(it.out)}, {A64});
      }
  };
  // Reord_k must wait for A2A_k exactly, not for later a2a's: remember each a2a per rank. The
  // reorder of a tensor is queued after the next tensor's all-to-all (the last one's at the end).
  std::vector<std::vector<TaskId>> a2a_task(items.size());
  const std::size_t n = items.size();
  for (std::size_t k = 0; k < n; ++k) {
    perm(items[k]);
    a2a(items[k]);
    a2a_task[k].resize(static_cast<std::size_t>(ctx.layout.world_size()), kNone);
    for (const auto& grp : groups)
      for (int rank : grp) a2a_task[k][static_cast<std::size_t>(rank)] = ctx.last(rank, nccl);
    if (k >= 1) reord(items[k - 1], a2a_task[k - 1]);
  }
  reord(items[n - 1], a2a_task[n - 1]);
  for (const auto& grp : groups)
    for (int rank : grp) ctx.wait_stream(rank, Stream::Main, Stream::Cp);
}

}  // namespace

void build_a2a_before(ScheduleContext& ctx, GroupKind group, Stream nccl, const std::vector<A2AItem>& items) {
  check_heads(ctx, group_size(ctx, group));
  exchange(ctx, group, nccl, items, true);
}

void build_a2a_after(ScheduleContext& ctx, GroupKind group, Stream nccl, const std::vector<A2AItem>& items) {
  check_heads(ctx, group_size(ctx, group));
  exchange(ctx, group, nccl, items, false);
}

namespace {

std::vector<std::int64_t> full_args(std::int64_t L, bool causal) { return {0, L, 0, L, causal ? 1 : 0}; }

AttentionShape full_shape(const ScheduleContext& ctx, int A) {
  const auto& z = ctx.sz;
  return attention_shape(z.b, z.s * A, z.s * A, z.h_t / A, z.g_t / A, z.d_qk, z.d_v,
                         z.causal ? MaskSection::Causal : MaskSection::Full);
}

}  // namespace

void build_a2a_forward(ScheduleContext& ctx, GroupKind group, Stream nccl) {
  const auto& z = ctx.sz;
  const int A = group_size(ctx, group);
  build_a2a_before(ctx, group, nccl,
                   {{"q", BufName::Q, BufName::LevelQ, z.h_t, z.d_qk, 0, 0},
                    {"k", BufName::K, BufName::LevelK, z.g_t, z.d_qk, 0, 1},
                    {"v", BufName::V, BufName::LevelV, z.g_t, z.d_v, 0, 2}});
  const AttentionShape a = full_shape(ctx, A);
  for (const auto& grp : ctx.layout.groups(group))
    for (int rank : grp) {
      const TaskId t = ctx.add_attention(rank, Pass::Forward, Stream::Main, -1, a);
      ctx.payload(t, PayloadOp::AttnFwd, {ctx.key(BufName::LevelQ), ctx.key(BufName::LevelK), ctx.key(BufName::LevelV)},
                  {ctx.key(BufName::LevelOut), ctx.key(BufName::Lse, 0)}, full_args(a.q_len, z.causal));
    }
  build_a2a_after(ctx, group, nccl, {{"o", BufName::LevelOut, BufName::Out, z.h_t, z.d_v, 0, 3}});
}

void build_a2a_backward(ScheduleContext& ctx, GroupKind group, Stream nccl) {
  const auto& z = ctx.sz;
  const int A = group_size(ctx, group);
  build_a2a_before(ctx, group, nccl, {{"do", BufName::DOut, BufName::LevelDOut, z.h_t, z.d_v, 0, 4}});
  const AttentionShape a = full_shape(ctx, A);
  for (const auto& grp : ctx.layout.groups(group))
    for (int rank : grp) {
      const TaskId t = ctx.add_attention(rank, Pass::Backward, Stream::Main, -1, a);
      ctx.payload(t, PayloadOp::AttnBwd,
                  {ctx.key(BufName::LevelQ), ctx.key(BufName::LevelK), ctx.key(BufName::LevelV),
                   ctx.key(BufName::LevelOut), ctx.key(BufName::LevelDOut), ctx.key(BufName::Lse, 0)},
                  {ctx.key(BufName::LevelDQ), ctx.key(BufName::LevelDK), ctx.key(BufName::LevelDV)},
                  full_args(a.q_len, z.causal));
    }
  build_a2a_after(ctx, group, nccl,
                  {{"dq", BufName::LevelDQ, BufName::DQ, z.h_t, z.d_qk, 0, 5},
                   {"dk", BufName::LevelDK, BufName::DK, z.g_t, z.d_qk, 0, 6},
                   {"dv", BufName::LevelDV, BufName::DV, z.g_t, z.d_v, 0, 7}});
}

}  // namespace hcpsim::schedule
