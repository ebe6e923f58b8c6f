// a2a+p2p (hierarchical CP), rank (p, a) with cp index i = p*A + a, rings of size P.
//
//  forward:  [a2a level 0: perm/a2a/reord of Q, K, V]  -> rank holds D_p | D_{2P-1-p} (A chunks
//            each) for head block a ; [ring level 1: KV ring over P ranks, c = S/(2P)] ;
//            [a2a level 0: output back to C_i | C_{2cp-1-i}, all heads]
//  backward: [a2a of dO] ; [ring backward] ; [a2a of dQ, dK, dV]
//
//    cp=4 [2,2]:  rank0 {C0,C7} rank1 {C1,C6} | rank2 {C2,C5} rank3 {C3,C4}
//        a2a [0,1],[2,3] ->  ranks 0,1: [C0 C1 | C6 C7]   ranks 2,3: [C2 C3 | C4 C5]
//        rings [0,2] (heads 0..H/2), [1,3] (heads H/2..H)
#include "engine/schedule/a2a_p2p.h"

#include <stdexcept>

#include "engine/schedule/a2a_ulysses.h"
#include "engine/schedule/p2p_ring.h"

namespace hcpsim::schedule {

namespace {

RingIO flat_ring(const ScheduleContext& ctx, GroupKind group) {
  RingIO io;
  io.group = group;
  io.heads = ctx.sz.h_t;
  io.kv_heads = ctx.sz.g_t;
  io.c = ctx.sz.s / 2;
  return io;
}

RingIO level_ring(const ScheduleContext& ctx) {
  const int A = ctx.layout.a2a_size(), P = ctx.layout.ring_size();
  RingIO io;
  io.group = GroupKind::HCP_P2P;
  io.heads = ctx.sz.h_t / A;
  io.kv_heads = ctx.sz.g_t / A;
  io.c = ctx.sz.S / (2 * P);
  io.q = BufName::LevelQ;
  io.k = BufName::LevelK;
  io.v = BufName::LevelV;
  io.out = BufName::LevelOut;
  io.dout = BufName::LevelDOut;
  io.dq = BufName::LevelDQ;
  io.split_dkv = false;
  io.dkv = BufName::LevelDKV;
  return io;
}

void require_hierarchical(const ScheduleContext& ctx) {
  if (!ctx.layout.hierarchical())
    throw std::invalid_argument(
        "layer " + std::to_string(ctx.layer) +
        ": cp_comm_type a2a+p2p needs model.hierarchical_context_parallel_sizes [A, P] with A*P = cp "
        "(without them Megatron silently disables CP: docs/schedules.md, \"The silent-disable pitfall\")");
}

// a2a+p2p with a level of size 1 is the other level's schedule alone: A = 1 is the p2p ring over
// the level-1 groups, P = 1 is the a2a over the level-0 groups. Builds that pass and returns true
// in those cases; returns false (nothing built) when both levels have 2 or more ranks. Throws when
// the layout is not hierarchical.
bool built_as_one_level(ScheduleContext& ctx, Pass pass) {
  require_hierarchical(ctx);
  const bool fwd = pass == Pass::Forward;
  if (ctx.layout.a2a_size() == 1) {
    const RingIO io = flat_ring(ctx, GroupKind::HCP_P2P);
    fwd ? build_ring_forward(ctx, io) : build_ring_backward(ctx, io);
    return true;
  }
  if (ctx.layout.ring_size() == 1) {
    fwd ? build_a2a_forward(ctx, GroupKind::HCP_A2A, Stream::NcclA2A)
        : build_a2a_backward(ctx, GroupKind::HCP_A2A, Stream::NcclA2A);
    return true;
  }
  return false;
}

}  // namespace

void build_p2p_forward(ScheduleContext& ctx) { build_ring_forward(ctx, flat_ring(ctx, GroupKind::CP)); }
void build_p2p_backward(ScheduleContext& ctx) { build_ring_backward(ctx, flat_ring(ctx, GroupKind::CP)); }

void build_a2a_p2p_forward(ScheduleContext& ctx) {
  if (built_as_one_level(ctx, Pass::Forward)) return;
  const auto& z = ctx.sz;
  build_a2a_before(ctx, GroupKind::HCP_A2A, Stream::NcclA2A,
                   {{"q", BufName::Q, BufName::LevelQ, z.h_t, z.d_qk, 0, 0},
                    {"k", BufName::K, BufName::LevelK, z.g_t, z.d_qk, 0, 1},
                    {"v", BufName::V, BufName::LevelV, z.g_t, z.d_v, 0, 2}});
  build_ring_forward(ctx, level_ring(ctx));
  build_a2a_after(ctx, GroupKind::HCP_A2A, Stream::NcclA2A, {{"o", BufName::LevelOut, BufName::Out, z.h_t, z.d_v, 0, 3}});
}

void build_a2a_p2p_backward(ScheduleContext& ctx) {
  if (built_as_one_level(ctx, Pass::Backward)) return;
  const auto& z = ctx.sz;
  build_a2a_before(ctx, GroupKind::HCP_A2A, Stream::NcclA2A, {{"do", BufName::DOut, BufName::LevelDOut, z.h_t, z.d_v, 0, 4}});
  build_ring_backward(ctx, level_ring(ctx));
  build_a2a_after(ctx, GroupKind::HCP_A2A, Stream::NcclA2A,
                  {{"dq", BufName::LevelDQ, BufName::DQ, z.h_t, z.d_qk, 0, 5},
                   {"dk", BufName::LevelDKV, BufName::DK, z.g_t, z.d_qk, 0, 6},
                   {"dv", BufName::LevelDKV, BufName::DV, z.g_t, z.d_v, z.d_qk, 7}});
}

namespace {

AttentionShape local_shape(const ScheduleContext& ctx) {
  const auto& z = ctx.sz;
  return attention_shape(z.b, z.s, z.s, z.h_t, z.g_t, z.d_qk, z.d_v, z.causal ? MaskSection::Causal : MaskSection::Full);
}

}  // namespace

void build_local_forward(ScheduleContext& ctx) {
  const auto& z = ctx.sz;
  const AttentionShape a = local_shape(ctx);
  for (int rank = 0; rank < ctx.layout.world_size(); ++rank) {
    const TaskId t = ctx.add_attention(rank, Pass::Forward, Stream::Main, -1, a);
    ctx.payload(t, PayloadOp::AttnFwd, {ctx.key(BufName::Q), ctx.key(BufName::K), ctx.key(BufName::V)},
                {ctx.key(BufName::Out), ctx.key(BufName::Lse, 0)}, {0, z.s, 0, z.s, z.causal ? 1 : 0});
  }
}

void build_local_backward(ScheduleContext& ctx) {
  const auto& z = ctx.sz;
  const AttentionShape a = local_shape(ctx);
  for (int rank = 0; rank < ctx.layout.world_size(); ++rank) {
    const TaskId t = ctx.add_attention(rank, Pass::Backward, Stream::Main, -1, a);
    ctx.payload(t, PayloadOp::AttnBwd,
                {ctx.key(BufName::Q), ctx.key(BufName::K), ctx.key(BufName::V), ctx.key(BufName::Out),
                 ctx.key(BufName::DOut), ctx.key(BufName::Lse, 0)},
                {ctx.key(BufName::DQ), ctx.key(BufName::DK), ctx.key(BufName::DV)}, {0, z.s, 0, z.s, z.causal ? 1 : 0});
  }
}

}  // namespace hcpsim::schedule
