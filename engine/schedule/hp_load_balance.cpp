// HyperParallel ContextParallel(ulysses_degree=1, load_balance=True): head-tail load balancing of
// pure Colossal CP. CP index i holds tokens [i*s, (i+1)*s) = chunks C_2i | C_2i+1 of 2*cp chunks of
// c = s/2 tokens; its peer is j = cp-1-i.
//
//  forward   main: keep = Q[0, c) (C_2i), tail = Q[c, 2c) (C_2i+1)
//            p2p : send tail to j, receive j's tail (C_2j+1)              (a rank that is its own peer copies)
//            K, V all-gathered (as pure Colossal)
//            attn 1: C_2i    x K/V [0, (2i+1)c)   bottom-right causal
//            attn 2: C_2j+1  x K/V [0, (2j+2)c)   bottom-right causal
//            p2p : attn 2's output back to j; out = [attn 1 | received]
//  backward  dO tail to the peer; attn_bwd 2, attn_bwd 1; dQ of attn 2 back; dQ = [dq 1 | received];
//            dK, dV of both summed, reduce-scattered (as pure Colossal).
//  Every rank computes chunks 2i and 2(cp-1-i)+1, whose causal pairs sum to the same on every rank.
#include "engine/schedule/hp_common.h"
#include "engine/schedule/hp_context_parallel.h"

namespace hcpsim::schedule {

namespace {

// Send/Recv slots (after the ContextParallel ones), FullDkv versions.
constexpr int kSlotQTail = 10, kSlotOutBack = 11, kSlotDoTail = 12, kSlotDqBack = 13, kSlotRsDk = 8, kSlotRsDv = 9;
constexpr int kDk1 = 0, kDv1 = 1, kDk2 = 2, kDv2 = 3, kDkSum = 4, kDvSum = 5;
constexpr int kKeepQ = 1, kKeepDo = 1;   // LevelQ / LevelDOut versions of the kept halves

AttentionShape half_shape(const ScheduleContext& ctx, int chunk) {
  const auto& z = ctx.sz;
  const std::int64_t c = z.s / 2, S = z.S;
  const std::int64_t kv = z.causal ? (chunk + 1) * c : S;
  return attention_shape(z.b, c, kv, z.h_t, z.g_t, z.d_qk, z.d_v, z.causal ? MaskSection::BottomRight : MaskSection::Full);
}

// The two attention halves of CP index i: its own head chunk C_2i with the kept Q and dO halves,
// and the peer's tail chunk C_2j+1 with the received ones; each with its output step and its dK,
// dV versions.
struct Half {
  int step;
  BufName q;
  int q_version;
  BufName dout;
  int dout_version;
  int dk, dv;
};
constexpr Half kOwnHead{0, BufName::LevelQ, kKeepQ, BufName::LevelDOut, kKeepDo, kDk1, kDv1};
constexpr Half kPeerTail{1, BufName::Recv, kSlotQTail, BufName::Recv, kSlotDoTail, kDk2, kDv2};

// The attention of half h on the rank of CP index i.
void attention_forward(ScheduleContext& ctx, int rank, const Half& h, int i, int cp) {
  const AttentionShape a = half_shape(ctx, h.step == 0 ? 2 * i : 2 * (cp - 1 - i) + 1);
  const std::uint64_t k = ctx.key(BufName::FullKV, 0), v = ctx.key(BufName::FullKV, 1);
  const TaskId t = ctx.add_attention(rank, Pass::Forward, Stream::Main, h.step, a);
  ctx.payload(t, PayloadOp::AttnFwd, {ctx.key(h.q, h.q_version), k, v},
              {ctx.key(BufName::StepOut, h.step), ctx.key(BufName::StepLse, h.step)}, hp_tile_args(a, ctx.sz.causal));
}

void attention_backward(ScheduleContext& ctx, int rank, const Half& h, int i, int cp) {
  const AttentionShape a = half_shape(ctx, h.step == 0 ? 2 * i : 2 * (cp - 1 - i) + 1);
  const std::uint64_t k = ctx.key(BufName::FullKV, 0), v = ctx.key(BufName::FullKV, 1);
  const TaskId t = ctx.add_attention(rank, Pass::Backward, Stream::Main, h.step, a);
  ctx.payload(t, PayloadOp::AttnBwd,
              {ctx.key(h.q, h.q_version), k, v, ctx.key(BufName::StepOut, h.step), ctx.key(h.dout, h.dout_version),
               ctx.key(BufName::StepLse, h.step)},
              {ctx.key(BufName::BwdDq, h.step), ctx.key(BufName::FullDkv, h.dk), ctx.key(BufName::FullDkv, h.dv)},
              hp_tile_args(a, ctx.sz.causal));
}

void slice(ScheduleContext& ctx, const char* label, BufName in, BufName out, int out_version, std::int64_t off,
           double bytes) {
  hp_each_rank(ctx, [&](int rank, int, int) {
    const TaskId t = ctx.add(rank, TaskKind::Copy, Stream::Main, label, -1, 0, 2 * bytes);
    ctx.payload(t, PayloadOp::TokenSlice, {ctx.key(in)}, {ctx.key(out, out_version)}, {off, ctx.sz.s / 2});
  });
}

// Splits `in` (Q forward, dO backward) into the kept first half (`keep` version `keep_version`) and
// the tail half, which goes to the peer through Send/Recv slot `slot` ("<name>_keep", "<name>_tail",
// "p2p_<name>_tail"); `bytes` is one half.
void keep_head_send_tail(ScheduleContext& ctx, const std::string& name, BufName in, BufName keep, int keep_version,
                         int slot, double bytes) {
  slice(ctx, (name + "_keep").c_str(), in, keep, keep_version, 0, bytes);
  slice(ctx, (name + "_tail").c_str(), in, BufName::Send, slot, ctx.sz.s / 2, bytes);
  hp_exchange(ctx, "p2p_" + name + "_tail", GroupKind::CP, BufName::Send, slot, BufName::Recv, slot, bytes);
}

}  // namespace

void build_hp_load_balance_forward(ScheduleContext& ctx) {
  const auto& z = ctx.sz;
  const std::int64_t c = z.s / 2;
  const double q_half = hp_bytes(ctx, c, z.h_t, z.d_qk), o_half = hp_bytes(ctx, c, z.h_t, z.d_v);
  keep_head_send_tail(ctx, "q", BufName::Q, BufName::LevelQ, kKeepQ, kSlotQTail, q_half);
  for (const auto& [name, in, dim, v] : {std::tuple{"k", BufName::K, z.d_qk, 0}, std::tuple{"v", BufName::V, z.d_v, 1}}) {
    const HpGatherItem it{name, in, 0, dim, v, v};
    hp_gather_issue(ctx, it);
    hp_gather_finish(ctx, it);
  }
  hp_each_rank(ctx, [&](int rank, int i, int cp) {
    attention_forward(ctx, rank, kOwnHead, i, cp);
    attention_forward(ctx, rank, kPeerTail, i, cp);
  });
  hp_exchange(ctx, "p2p_out_back", GroupKind::CP, BufName::StepOut, 1, BufName::Recv, kSlotOutBack, o_half);
  hp_each_rank(ctx, [&](int rank, int, int) {
    const TaskId t = ctx.add(rank, TaskKind::Copy, Stream::Main, "out_cat", -1, 0, 4 * o_half);
    ctx.payload(t, PayloadOp::TokenConcat, {ctx.key(BufName::StepOut, 0), ctx.key(BufName::Recv, kSlotOutBack)},
                {ctx.key(BufName::Out)});
  });
}

void build_hp_load_balance_backward(ScheduleContext& ctx) {
  const auto& z = ctx.sz;
  const std::int64_t c = z.s / 2;
  const double q_half = hp_bytes(ctx, c, z.h_t, z.d_qk), o_half = hp_bytes(ctx, c, z.h_t, z.d_v);
  keep_head_send_tail(ctx, "do", BufName::DOut, BufName::LevelDOut, kKeepDo, kSlotDoTail, o_half);
  hp_each_rank(ctx, [&](int rank, int i, int cp) {
    attention_backward(ctx, rank, kPeerTail, i, cp);
    attention_backward(ctx, rank, kOwnHead, i, cp);
  });
  hp_exchange(ctx, "p2p_dq_back", GroupKind::CP, BufName::BwdDq, 1, BufName::Recv, kSlotDqBack, q_half);
  const double full_kv = hp_bytes(ctx, z.S, z.g_t, z.d_qk + z.d_v);
  hp_each_rank(ctx, [&](int rank, int, int) {
    const TaskId t = ctx.add(rank, TaskKind::Copy, Stream::Main, "dq_cat", -1, 0, 4 * q_half);
    ctx.payload(t, PayloadOp::TokenConcat, {ctx.key(BufName::BwdDq, 0), ctx.key(BufName::Recv, kSlotDqBack)},
                {ctx.key(BufName::DQ)});
    const TaskId a = ctx.add(rank, TaskKind::Copy, Stream::Main, "dkv_sum", -1, 0, 3 * full_kv);
    ctx.payload(a, PayloadOp::Add,
                {ctx.key(BufName::FullDkv, kDk1), ctx.key(BufName::FullDkv, kDk2), ctx.key(BufName::FullDkv, kDv1),
                 ctx.key(BufName::FullDkv, kDv2)},
                {ctx.key(BufName::FullDkv, kDkSum), ctx.key(BufName::FullDkv, kDvSum)});
  });
  hp_reduce_scatter(ctx, "dk", BufName::FullDkv, kDkSum, z.d_qk, kSlotRsDk, BufName::DK, 0);
  hp_reduce_scatter(ctx, "dv", BufName::FullDkv, kDvSum, z.d_v, kSlotRsDv, BufName::DV, 0);
}

}  // namespace hcpsim::schedule
