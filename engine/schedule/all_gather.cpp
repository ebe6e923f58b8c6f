// all_gather (TE AttnFuncWithCPAndKVAllGather), CP group of size cp, CP index r, c = S/(2cp).
//
//  forward
//    main : all_gather_k ; wait ; all_gather_v ; wait       (nccl:cp, exposed)
//    main : reord_k, reord_v   gathered [r0: C_0 C_{2cp-1}][r1: C_1 C_{2cp-2}].. -> C_0 .. C_{2cp-1}
//    cp waits main
//    step 0 main: Q chunk C_r          x KV[0, (r+1)c)     bottom-right causal
//    step 1 cp  : Q chunk C_{2cp-1-r}  x KV[0, (2cp-r)c)   bottom-right causal
//    out_copy 0 (main), out_copy 1 (cp, after event of copy 0) ; main waits cp
//
//          KV: C_0 C_1 ... C_r ...              C_{2cp-1-r} ...
//    C_r       [##########\ ]                                       step 0
//    C_2cp-1-r [#################################\ ]                step 1
//
//  backward: all_gather_k/v again (not saved), reord, attn_bwd step 0 (main) / 1 (cp),
//    dkv_acc into full-length dK/dV (event chained), main waits cp, reord_dk, reord_dv
//    (back to per-rank chunk order), reduce_scatter_dk, reduce_scatter_dv (exposed).
#include "engine/schedule/all_gather.h"

#include <stdexcept>

#include "engine/schedule/comm_op.h"

namespace hcpsim::schedule {

std::int64_t all_gather_kv_len(int step, int r, int cp, std::int64_t c, bool causal) {
  if (!causal) return 2 * cp * c;
  return step == 0 ? (r + 1) * c : (2 * cp - r) * c;
}

namespace {

struct Collective {
  TaskKind kind;
  const char* label;
  BufName in;
  int in_version;
  BufName out;
  int out_version;
  double shard_bytes;
};

// One collective over every CP group; main waits for it (synchronous in TE).
void collective(ScheduleContext& ctx, const Collective& c) {
  const auto& groups = ctx.layout.groups(GroupKind::CP);
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const int n = static_cast<int>(groups[gi].size());
    CommOp op = comm_op(c.kind, GroupKind::CP, gi);
    op.bytes_per_rank = c.shard_bytes;
    for (int rank : groups[gi]) {
      const TaskId t = ctx.add_nccl(rank, c.kind, Stream::NcclCp, Stream::Main, c.label, -1, (n - 1) * c.shard_bytes);
      ctx.payload(t, c.kind == TaskKind::AllGather ? PayloadOp::AllGather : PayloadOp::ReduceScatter,
                  {ctx.key(c.in, c.in_version)}, {ctx.key(c.out, c.out_version)});
      ctx.wait(rank, Stream::Main, t);
      op.ranks.push_back(rank);
      op.tasks.push_back(t);
    }
    ctx.add_comm(std::move(op));
  }
}


// Buffer versions this schedule uses, by name instead of bare integers (every (buffer, layer,
// version) is written exactly once):
// Gathered / FullKV hold K and V gathered for the forward pass, then gathered again for backward.
constexpr int kFwdK = 0, kFwdV = 1, kBwdK = 2, kBwdV = 3;
// FullDkv holds dK and dV after step 0, then their sums over both steps.
constexpr int kDkStep0 = 0, kDvStep0 = 1, kDkSum = 2, kDvSum = 3;
// BwdDkv holds each step's own dK and dV.
constexpr int dk_of_step(int step) { return 2 * step; }
constexpr int dv_of_step(int step) { return 2 * step + 1; }
// Send holds the chunk-ordered dK and dV that the reduce-scatters take.
constexpr int kSendDk = 6, kSendDv = 7;

AttentionShape shape(const ScheduleContext& ctx, int step, int r, int cp) {
  const auto& z = ctx.sz;
  const std::int64_t c = z.s / 2;
  return attention_shape(z.b, c, all_gather_kv_len(step, r, cp, c, z.causal), z.h_t, z.g_t, z.d_qk, z.d_v,
                         z.causal ? MaskSection::BottomRight : MaskSection::Full);
}

// Bytes of one rank's shard (its s tokens) of K and of V: what each rank adds to an all_gather and
// receives from a reduce_scatter.
struct KvShardBytes {
  double k, v;
};

KvShardBytes kv_shard_bytes(const ScheduleContext& ctx) {
  const auto& z = ctx.sz;
  const double tokens_heads = static_cast<double>(z.b) * static_cast<double>(z.s) * z.g_t;
  return {tokens_heads * z.d_qk * z.e, tokens_heads * z.d_v * z.e};
}

void gather_kv(ScheduleContext& ctx, int k_version, int v_version) {
  const auto [Tk, Tv] = kv_shard_bytes(ctx);
  const int cp = ctx.layout.cp();
  collective(ctx, {TaskKind::AllGather, "all_gather_k", BufName::K, 0, BufName::Gathered, k_version, Tk});
  collective(ctx, {TaskKind::AllGather, "all_gather_v", BufName::V, 0, BufName::Gathered, v_version, Tv});
  for (const auto& grp : ctx.layout.groups(GroupKind::CP))
    for (int rank : grp) {
      const TaskId tk = ctx.add(rank, TaskKind::Copy, Stream::Main, "reord_k", -1, 0, 2 * cp * Tk);
      ctx.payload(tk, PayloadOp::ChunksToNatural, {ctx.key(BufName::Gathered, k_version)},
                  {ctx.key(BufName::FullKV, k_version)}, {cp});
      const TaskId tv = ctx.add(rank, TaskKind::Copy, Stream::Main, "reord_v", -1, 0, 2 * cp * Tv);
      ctx.payload(tv, PayloadOp::ChunksToNatural, {ctx.key(BufName::Gathered, v_version)},
                  {ctx.key(BufName::FullKV, v_version)}, {cp});
      ctx.wait_stream(rank, Stream::Cp, Stream::Main);
    }
}

// What a pass does at one of its two attention steps: the attention task's buffers, then an
// accumulation (a Copy task adding into the pass's result) on the same stream.
struct StepWork {
  PayloadOp attention_op;
  std::vector<std::uint64_t> attention_in, attention_out;
  const char* accumulate_label;
  double accumulate_bytes;
  std::vector<std::uint64_t> accumulate_in, accumulate_out;
};

// The two attention steps of every CP rank, as TE runs them: step 0 on main, step 1 on cp, each an
// attention over the gathered K/V followed by an accumulation on its stream; step 1's accumulation
// waits for step 0's (a CUDA event), then main waits for cp. `work(step)` gives a step's buffers;
// `after(rank)` adds what the rank runs next on main.
template <typename Work, typename After>
void attention_steps(ScheduleContext& ctx, Pass pass, Work&& work, After&& after) {
  const int cp = ctx.layout.cp();
  const std::int64_t c = ctx.sz.s / 2;
  for (const auto& grp : ctx.layout.groups(GroupKind::CP))
    for (int r = 0; r < cp; ++r) {
      const int rank = grp[static_cast<std::size_t>(r)];
      TaskId accumulate0 = kNone;
      for (int step = 0; step < 2; ++step) {
        const Stream st = step == 0 ? Stream::Main : Stream::Cp;
        const AttentionShape a = shape(ctx, step, r, cp);
        StepWork w = work(step);
        const TaskId t = ctx.add_attention(rank, pass, st, step, a);
        ctx.payload(t, w.attention_op, std::move(w.attention_in), std::move(w.attention_out),
                    {step * c, c, 0, a.kv_len, ctx.sz.causal ? 1 : 0});
        if (step == 1) ctx.wait(rank, st, accumulate0);
        const TaskId acc = ctx.add(rank, TaskKind::Copy, st, w.accumulate_label, step, 0, w.accumulate_bytes);
        ctx.payload(acc, PayloadOp::Add, std::move(w.accumulate_in), std::move(w.accumulate_out));
        if (step == 0) accumulate0 = acc;
      }
      ctx.wait_stream(rank, Stream::Main, Stream::Cp);
      after(rank);
    }
}

}  // namespace

void build_all_gather_forward(ScheduleContext& ctx) {
  const auto& z = ctx.sz;
  const std::int64_t c = z.s / 2;
  gather_kv(ctx, kFwdK, kFwdV);
  const double out_bytes = static_cast<double>(z.b) * static_cast<double>(c) * z.h_t * z.d_v * z.e;
  // Each step writes its half of the output: step 0 into LevelOut, step 1 adds LevelOut into Out.
  auto work = [&](int step) -> StepWork {
    return {PayloadOp::AttnFwd,
            {ctx.key(BufName::Q), ctx.key(BufName::FullKV, kFwdK), ctx.key(BufName::FullKV, kFwdV)},
            {ctx.key(BufName::StepOut, step), ctx.key(BufName::StepLse, step)},
            "out_copy",
            2 * out_bytes,
            step == 0 ? std::vector<std::uint64_t>{ctx.key(BufName::StepOut, 0)}
                      : std::vector<std::uint64_t>{ctx.key(BufName::LevelOut), ctx.key(BufName::StepOut, 1)},
            {step == 0 ? ctx.key(BufName::LevelOut) : ctx.key(BufName::Out)}};
  };
  attention_steps(ctx, Pass::Forward, work, [](int) {});
}

void build_all_gather_backward(ScheduleContext& ctx) {
  const auto& z = ctx.sz;
  const int cp = ctx.layout.cp();
  gather_kv(ctx, kBwdK, kBwdV);
  const double full_kv_bytes = static_cast<double>(z.b) * static_cast<double>(z.S) * z.g_t * (z.d_qk + z.d_v) * z.e;
  // dQ, dK and dV of step 0, then their sums with step 1's, into full-length buffers.
  auto work = [&](int step) -> StepWork {
    StepWork w{PayloadOp::AttnBwd,
               {ctx.key(BufName::Q), ctx.key(BufName::FullKV, kBwdK), ctx.key(BufName::FullKV, kBwdV),
                ctx.key(BufName::Out), ctx.key(BufName::DOut), ctx.key(BufName::StepLse, step)},
               {ctx.key(BufName::BwdDq, step), ctx.key(BufName::BwdDkv, dk_of_step(step)),
                ctx.key(BufName::BwdDkv, dv_of_step(step))},
               "dkv_acc",
               (step == 0 ? 2 : 3) * full_kv_bytes,
               {},
               {}};
    if (step == 0) {
      w.accumulate_in = {ctx.key(BufName::BwdDq, 0), ctx.key(BufName::BwdDkv, dk_of_step(0)),
                         ctx.key(BufName::BwdDkv, dv_of_step(0))};
      w.accumulate_out = {ctx.key(BufName::Dq, 0), ctx.key(BufName::FullDkv, kDkStep0),
                          ctx.key(BufName::FullDkv, kDvStep0)};
    } else {
      w.accumulate_in = {ctx.key(BufName::Dq, 0),         ctx.key(BufName::BwdDq, 1),
                         ctx.key(BufName::FullDkv, kDkStep0), ctx.key(BufName::BwdDkv, dk_of_step(1)),
                         ctx.key(BufName::FullDkv, kDvStep0), ctx.key(BufName::BwdDkv, dv_of_step(1))};
      w.accumulate_out = {ctx.key(BufName::DQ), ctx.key(BufName::FullDkv, kDkSum), ctx.key(BufName::FullDkv, kDvSum)};
    }
    return w;
  };
  // Back to per-rank chunk order, dK and dV apart, for the reduce-scatters.
  auto reorder = [&](int rank) {
    const TaskId rk = ctx.add(rank, TaskKind::Copy, Stream::Main, "reord_dk", -1, 0,
                              2 * full_kv_bytes * z.d_qk / (z.d_qk + z.d_v));
    ctx.payload(rk, PayloadOp::NaturalToChunks, {ctx.key(BufName::FullDkv, kDkSum)}, {ctx.key(BufName::Send, kSendDk)},
                {cp, 0, z.d_qk});
    const TaskId rv = ctx.add(rank, TaskKind::Copy, Stream::Main, "reord_dv", -1, 0,
                              2 * full_kv_bytes * z.d_v / (z.d_qk + z.d_v));
    ctx.payload(rv, PayloadOp::NaturalToChunks, {ctx.key(BufName::FullDkv, kDvSum)}, {ctx.key(BufName::Send, kSendDv)},
                {cp, 0, z.d_v});
  };
  attention_steps(ctx, Pass::Backward, work, reorder);
  const auto [Tk, Tv] = kv_shard_bytes(ctx);
  collective(ctx, {TaskKind::ReduceScatter, "reduce_scatter_dk", BufName::Send, kSendDk, BufName::DK, 0, Tk});
  collective(ctx, {TaskKind::ReduceScatter, "reduce_scatter_dv", BufName::Send, kSendDv, BufName::DV, 0, Tv});
}

}  // namespace hcpsim::schedule
