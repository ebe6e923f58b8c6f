// HyperParallel ContextParallel (u = ulysses degree, co = cp / u; docs/schedules.md "HyperParallel").
//
//  forward                                           rank (co index c, ds index j) holds afterwards
//    Q, K, V: perm, all_to_all on hp_ulysses, reord   tokens [c*u*s, (c+1)*u*s), heads block j   (u > 1)
//    K, V:    all_gather on hp_colossal, reord        all S tokens of K and V, heads block j      (co > 1)
//    attn:    Q rows x K/V [0, (c+1)*u*s) bottom-right causal (all S without a mask)
//    O:       perm, all_to_all back, head merge                                                   (u > 1)
//  backward (autograd of the above; the gathered K/V are the ones saved in forward)
//    dO: all_to_all to heads; attn_bwd -> dQ, full-length dK, dV
//    dK, dV: reduce_scatter on hp_colossal (co > 1); dQ, dK, dV: all_to_all back (u > 1)
//
//  AsyncContextParallel in whole-layer forward: q_proj -> a2a_q, k_proj -> a2a_k / all_gather_k,
//  v_proj -> a2a_v / all_gather_v, started on their NCCL streams and waited for at attention; in the
//  hybrid only the Ulysses all-to-alls start early (the K/V all-gather stays at attention).
#include "engine/schedule/hp_context_parallel.h"

#include "engine/schedule/hp_common.h"

namespace hcpsim::schedule {

namespace {

// Staging slots (Send/Recv versions) of one layer.
constexpr int kSlotQ = 0, kSlotK = 1, kSlotV = 2, kSlotO = 3, kSlotDo = 4, kSlotDq = 5, kSlotDk = 6, kSlotDv = 7,
              kSlotRsDk = 8, kSlotRsDv = 9;
// Gathered / FullKV versions, FullDkv versions.
constexpr int kGatherK = 0, kGatherV = 1, kFullDk = 0, kFullDv = 1;

struct Key {
  BufName n;
  int v = 0;
};

// Where each tensor lives for a mode (a level of size 1 skips its copies).
struct HpBuffers {
  Key q, k, v, out, dout, dq, dk_full, dv_full, dk_local, dv_local;
};

HpBuffers buffers(const HpShape& h) {
  const bool a2a = h.u > 1, gather = h.co > 1;
  HpBuffers b;
  b.q = a2a ? Key{BufName::LevelQ} : Key{BufName::Q};
  const Key k_local = a2a ? Key{BufName::LevelK} : Key{BufName::K};
  const Key v_local = a2a ? Key{BufName::LevelV} : Key{BufName::V};
  b.k = gather ? Key{BufName::FullKV, kGatherK} : k_local;
  b.v = gather ? Key{BufName::FullKV, kGatherV} : v_local;
  b.out = a2a ? Key{BufName::LevelOut} : Key{BufName::Out};
  b.dout = a2a ? Key{BufName::LevelDOut} : Key{BufName::DOut};
  b.dq = a2a ? Key{BufName::LevelDQ} : Key{BufName::DQ};
  b.dk_local = a2a ? Key{BufName::LevelDK} : Key{BufName::DK};
  b.dv_local = a2a ? Key{BufName::LevelDV} : Key{BufName::DV};
  b.dk_full = gather ? Key{BufName::FullDkv, kFullDk} : b.dk_local;
  b.dv_full = gather ? Key{BufName::FullDkv, kFullDv} : b.dv_local;
  return b;
}

HpA2AItem to_heads(const char* name, BufName in, BufName out, int heads, int dim, int slot) {
  return {name, in, 0, out, 0, heads, dim, slot};
}

AttentionShape shape_of(const ScheduleContext& ctx, const HpShape& h, int c) {
  const std::int64_t kv = ctx.sz.causal ? (c + 1) * h.L : h.co * h.L;
  const MaskSection m = !ctx.sz.causal ? MaskSection::Full : kv == h.L ? MaskSection::Causal : MaskSection::BottomRight;
  return attention_shape(ctx.sz.b, h.L, kv, h.heads, h.kv_heads, ctx.sz.d_qk, ctx.sz.d_v, m);
}


}  // namespace

void build_hp_forward(ScheduleContext& ctx, bool with_projections) {
  const auto& z = ctx.sz;
  const HpShape h = hp_shape(ctx);
  HpBuffers B = buffers(h);
  const bool a2a = h.u > 1, gather = h.co > 1;
  // Inputs: the loader's Q, K, V, or the projections' output (version kProjectedVersion).
  const int in_v = with_projections ? kProjectedVersion : 0;
  HpA2AItem aq = to_heads("q", BufName::Q, BufName::LevelQ, z.h_t, z.d_qk, kSlotQ);
  HpA2AItem ak = to_heads("k", BufName::K, BufName::LevelK, z.g_t, z.d_qk, kSlotK);
  HpA2AItem av = to_heads("v", BufName::V, BufName::LevelV, z.g_t, z.d_v, kSlotV);
  aq.in_version = ak.in_version = av.in_version = in_v;
  const BufName k_in = a2a ? BufName::LevelK : BufName::K, v_in = a2a ? BufName::LevelV : BufName::V;
  const HpGatherItem gk{"k", k_in, a2a ? 0 : in_v, z.d_qk, kGatherK, kGatherK};
  const HpGatherItem gv{"v", v_in, a2a ? 0 : in_v, z.d_v, kGatherV, kGatherV};
  if (!a2a) B.q.v = in_v;
  if (with_projections) {
    // Ulysses (pure or hybrid): every all-to-all starts after its projection. Pure Colossal: the
    // K/V all-gathers start after k_proj / v_proj. Waits and reorders come at attention.
    HpProjectionHooks hooks;
    if (a2a) {
      hooks.after_q = [&] { hp_a2a_to_heads_issue(ctx, aq); };
      hooks.after_k = [&] { hp_a2a_to_heads_issue(ctx, ak); };
      hooks.after_v = [&] { hp_a2a_to_heads_issue(ctx, av); };
    } else if (gather) {
      hooks.after_k = [&] { hp_gather_issue(ctx, gk); };
      hooks.after_v = [&] { hp_gather_issue(ctx, gv); };
    }
    add_hp_projections(ctx, hooks);
    if (a2a) {
      for (const auto* it : {&aq, &ak, &av}) hp_a2a_to_heads_finish(ctx, *it);
      if (gather)
        for (const auto* it : {&gk, &gv}) {
          hp_gather_issue(ctx, *it);
          hp_gather_finish(ctx, *it);
        }
    } else if (gather) {
      for (const auto* it : {&gk, &gv}) hp_gather_finish(ctx, *it);
    }
  } else {
    if (a2a)
      for (const auto* it : {&aq, &ak, &av}) {
        hp_a2a_to_heads_issue(ctx, *it);
        hp_a2a_to_heads_finish(ctx, *it);
      }
    if (gather)
      for (const auto* it : {&gk, &gv}) {
        hp_gather_issue(ctx, *it);
        hp_gather_finish(ctx, *it);
      }
  }
  for (const auto& grp : ctx.layout.groups(GroupKind::CP))
    for (int rank : grp) {
      const AttentionShape a = shape_of(ctx, h, hp_colossal_index(ctx, rank));
      const TaskId t = ctx.add_attention(rank, Pass::Forward, Stream::Main, -1, a);
      ctx.payload(t, PayloadOp::AttnFwd, {ctx.key(B.q.n, B.q.v), ctx.key(B.k.n, B.k.v), ctx.key(B.v.n, B.v.v)},
                  {ctx.key(B.out.n, B.out.v), ctx.key(BufName::Lse, 0)}, hp_tile_args(a, z.causal));
    }
  if (a2a) hp_a2a_to_sequence(ctx, {"o", BufName::LevelOut, 0, BufName::Out, 0, z.h_t, z.d_v, kSlotO});
}

void build_hp_backward(ScheduleContext& ctx) {
  const auto& z = ctx.sz;
  const HpShape h = hp_shape(ctx);
  const HpBuffers B = buffers(h);
  const bool a2a = h.u > 1, gather = h.co > 1;
  if (a2a) {
    const HpA2AItem ado = to_heads("do", BufName::DOut, BufName::LevelDOut, z.h_t, z.d_v, kSlotDo);
    hp_a2a_to_heads_issue(ctx, ado);
    hp_a2a_to_heads_finish(ctx, ado);
  }
  for (const auto& grp : ctx.layout.groups(GroupKind::CP))
    for (int rank : grp) {
      const AttentionShape a = shape_of(ctx, h, hp_colossal_index(ctx, rank));
      const TaskId t = ctx.add_attention(rank, Pass::Backward, Stream::Main, -1, a);
      ctx.payload(t, PayloadOp::AttnBwd,
                  {ctx.key(B.q.n, B.q.v), ctx.key(B.k.n, B.k.v), ctx.key(B.v.n, B.v.v), ctx.key(B.out.n, B.out.v),
                   ctx.key(B.dout.n, B.dout.v), ctx.key(BufName::Lse, 0)},
                  {ctx.key(B.dq.n, B.dq.v), ctx.key(B.dk_full.n, B.dk_full.v), ctx.key(B.dv_full.n, B.dv_full.v)},
                  hp_tile_args(a, z.causal));
    }
  if (gather) {
    hp_reduce_scatter(ctx, "dk", B.dk_full.n, B.dk_full.v, z.d_qk, kSlotRsDk, B.dk_local.n, B.dk_local.v);
    hp_reduce_scatter(ctx, "dv", B.dv_full.n, B.dv_full.v, z.d_v, kSlotRsDv, B.dv_local.n, B.dv_local.v);
  }
  if (a2a) {
    hp_a2a_to_sequence(ctx, {"dq", BufName::LevelDQ, 0, BufName::DQ, 0, z.h_t, z.d_qk, kSlotDq});
    hp_a2a_to_sequence(ctx, {"dk", BufName::LevelDK, 0, BufName::DK, 0, z.g_t, z.d_qk, kSlotDk});
    hp_a2a_to_sequence(ctx, {"dv", BufName::LevelDV, 0, BufName::DV, 0, z.g_t, z.d_v, kSlotDv});
  }
}

}  // namespace hcpsim::schedule
