// DSA CP, rank with CP index c holding queries [c*s, (c+1)*s) (Colossal: u = 1, co = cp):
//
//  forward   all_gather k, v, index_k (nccl:cp, on the CP group) ; reord
//            main: indexer     scores q_index x index_k for the keys each query may see, top-k per query
//            main: attn        sparse: each query against its top-k keys only (pairs from top-k, not S^2)
//            main: indexer_loss  KL(attention distribution || indexer distribution) over the kept keys
//  backward  main: indexer_loss_bwd (gradients of q_index, index_k, weights) ; reduce_scatter_dindex_k
//            main: attn_bwd (sparse) ; reduce_scatter_dk, _dv
//
// AsyncDSA (HyperParallel's AsyncDSA*ContextParallel with handoff modules), whole-layer forward:
//            main: q_proj, k_proj -> all_gather k issued, v_proj -> all_gather v issued,
//                  index_k_proj -> all_gather index_k issued (K/V projections first, then the
//                  indexer's key, as DeepSeek-V3.2 runs them)
//            main: wait index_k, reord ; indexer ; wait k, v, reord ; attn ; indexer_loss
//  The three gathers share the CP communicator, so they run in issue order: the indexer's wait also
//  covers K and V. What the handoffs buy is the overlap of the gathers with the later projections.
//  Backward is the synchronous one (its reduce-scatters already run on nccl:cp behind attn_bwd).
//
// The reference executor checks O, dQ, dK, dV of the sparse attention against dense attention masked
// to the same top-k keys; the indexer-loss tasks and the index-key gradient exist only in timing graphs
// (they train the indexer's own weights, which the reference does not model).
#include "engine/schedule/hp_dsa.h"

#include <algorithm>

#include "engine/schedule/comm_op.h"
#include "engine/schedule/hp_common.h"
#include "engine/schedule/hp_context_parallel.h"

namespace hcpsim::schedule {

namespace {

constexpr int kGK = 0, kGV = 1, kGIndexK = 2;          // Gathered / FullKV versions
constexpr int kSlotRsDk = 8, kSlotRsDv = 9;

struct DsaDims {
  std::int64_t topk = 0;
  int n = 0, d = 0;     // indexer heads, head dim
};

DsaDims dims(const ScheduleContext& ctx) {
  const auto& m = ctx.scenario.model.dsa;
  return {m.index_topk, m.index_n_heads, m.index_head_dim};
}

std::int64_t kv_len(const ScheduleContext& ctx, int c) { return ctx.sz.causal ? (c + 1) * ctx.sz.s : ctx.sz.S; }

// Sparse attention kernel of CP index c: the dense tile's shape with the pairs of the kept keys.
AttentionShape sparse_shape(const ScheduleContext& ctx, int c, const DsaDims& x) {
  const auto& z = ctx.sz;
  AttentionShape a = attention_shape(z.b, z.s, kv_len(ctx, c), z.h_t, z.g_t, z.d_qk, z.d_v,
                                     z.causal ? MaskSection::BottomRight : MaskSection::Full);
  a.pairs = dsa_sparse_pairs(c * z.s, z.s, z.S, x.topk, z.causal);
  return a;
}

// Sparse attention HBM traffic: Q, O (and dO, dQ, LSE) per query, plus each kept key's K and V row.
double sparse_bytes(const ScheduleContext& ctx, const AttentionShape& a, Pass pass) {
  const auto& z = ctx.sz;
  const double rows = static_cast<double>(z.b) * static_cast<double>(a.q_len) * z.h_t;
  const double kv = static_cast<double>(z.b) * a.pairs * z.g_t * (z.d_qk + z.d_v) * z.e;
  const double q_side = rows * (z.d_qk + z.d_v) * z.e + rows * 4.0;
  return pass == Pass::Forward ? q_side + kv : 2 * q_side + 2 * kv;
}

std::vector<std::int64_t> tile(const ScheduleContext& ctx, int c) {
  return {0, ctx.sz.s, 0, kv_len(ctx, c), ctx.sz.causal ? 1 : 0};
}


}  // namespace

double dsa_sparse_pairs(std::int64_t q0, std::int64_t len, std::int64_t S, std::int64_t topk, bool causal) {
  if (!causal) return static_cast<double>(len) * static_cast<double>(std::min(topk, S));
  // Query at position t sees t+1 keys: min(topk, t+1), i.e. t+1 up to position topk-1, then topk.
  double pairs = 0;
  const std::int64_t ramp_end = std::min(q0 + len, topk);   // positions < topk see fewer than topk keys
  if (q0 < ramp_end) {
    const double a = static_cast<double>(q0 + 1), b = static_cast<double>(ramp_end);   // (t+1) for t in [q0, ramp_end)
    pairs += (a + b) * (b - a + 1) / 2;
  }
  const std::int64_t full_from = std::max(q0, topk);
  if (q0 + len > full_from) pairs += static_cast<double>(q0 + len - full_from) * static_cast<double>(topk);
  return pairs;
}

namespace {

// The indexer's key projection (one head of index_head_dim, not split by TP) on every rank: with
// payloads it produces the projected indexer key that the early all-gather reads.
void add_index_key_projection(ScheduleContext& ctx, int dim) {
  const double e = ctx.sz.e, hidden = ctx.scenario.model.hidden_size;
  const double tokens = static_cast<double>(ctx.sz.b) * static_cast<double>(ctx.sz.s);
  for (int r = 0; r < ctx.layout.world_size(); ++r) {
    const TaskId t = ctx.add(r, TaskKind::Gemm, Stream::Main, "index_k_proj", -1, 2.0 * tokens * hidden * dim,
                             (tokens * hidden + hidden * dim + tokens * dim) * e);
    ctx.payload(t, PayloadOp::Add, {ctx.key(BufName::IndexK, 0)}, {ctx.key(BufName::IndexK, kProjectedVersion)});
  }
}

}  // namespace

void build_hp_dsa_forward(ScheduleContext& ctx, bool with_projections) {
  const auto& z = ctx.sz;
  const DsaDims x = dims(ctx);
  const bool timing_only = !ctx.options.with_payloads;
  // Inputs: the loader's tensors, or (AsyncDSA) the projections' outputs.
  const int in_v = with_projections ? kProjectedVersion : 0;
  const HpGatherItem gk{"k", BufName::K, in_v, z.d_qk, kGK, kGK};
  const HpGatherItem gv{"v", BufName::V, in_v, z.d_v, kGV, kGV};
  const HpGatherItem gi{"index_k", BufName::IndexK, in_v, x.d, kGIndexK, kGIndexK, 1};
  if (with_projections) {
    HpProjectionHooks hooks;   // the handoff modules: each gather starts after its producer
    hooks.after_k = [&] { hp_gather_issue(ctx, gk); };
    hooks.after_v = [&] { hp_gather_issue(ctx, gv); };
    add_hp_projections(ctx, hooks);
    add_index_key_projection(ctx, x.d);
    hp_gather_issue(ctx, gi);
    hp_gather_finish(ctx, gi);   // the indexer boundary waits for its key
  } else {
    for (const HpGatherItem* it : {&gk, &gv, &gi}) {
      hp_gather_issue(ctx, *it);
      hp_gather_finish(ctx, *it);
    }
  }
  auto indexer = [&](int rank, int c) {
    const std::int64_t kv = kv_len(ctx, c);
    const double visible = attention_pairs(z.causal ? MaskSection::BottomRight : MaskSection::Full, z.s, kv);
    // Indexer: q_index . index_k per visible pair and indexer head, relu and weighted sum; top-k.
    const double idx_flops = 2.0 * z.b * x.n * (x.d + 1) * visible;
    const double idx_bytes = (static_cast<double>(z.b) * z.s * x.n * (x.d + 1) + static_cast<double>(z.b) * kv * x.d) * z.e +
                             static_cast<double>(z.b) * visible * 4.0 * 2;   // fp32 scores written, read by top-k
    const TaskId ti = ctx.add(rank, TaskKind::Gemm, Stream::Main, "indexer", -1, idx_flops, idx_bytes);
    ctx.payload(ti, PayloadOp::IndexerTopK,
                {ctx.key(BufName::IndexQ), ctx.key(BufName::FullKV, kGIndexK), ctx.key(BufName::IndexW)},
                {ctx.key(BufName::TopK)}, {c * z.s, x.topk, z.causal ? 1 : 0});
  };
  auto sparse_attention = [&](int rank, int c) {
    const AttentionShape a = sparse_shape(ctx, c, x);
    const TaskId t = ctx.add(rank, TaskKind::AttentionForward, Stream::Main, "attn", -1,
                             attention_flops(a, Pass::Forward), sparse_bytes(ctx, a, Pass::Forward));
    ctx.set_attention(t, a);
    ctx.payload(t, PayloadOp::AttnFwd,
                {ctx.key(BufName::Q, in_v), ctx.key(BufName::FullKV, kGK), ctx.key(BufName::FullKV, kGV), ctx.key(BufName::TopK)},
                {ctx.key(BufName::Out), ctx.key(BufName::Lse, 0)}, tile(ctx, c));
    if (timing_only) {
      // Indexer loss: the attention scores over the kept keys (all heads) against the indexer's.
      const double loss_flops = 2.0 * z.b * (z.h_t * z.d_qk + x.n * (x.d + 1)) * a.pairs;
      ctx.add(rank, TaskKind::Gemm, Stream::Main, "indexer_loss", -1, loss_flops, sparse_bytes(ctx, a, Pass::Forward));
    }
  };
  if (!with_projections) {
    hp_each_rank(ctx, [&](int rank, int c, int) {
      indexer(rank, c);
      sparse_attention(rank, c);
    });
    return;
  }
  hp_each_rank(ctx, [&](int rank, int c, int) { indexer(rank, c); });
  for (const HpGatherItem* it : {&gk, &gv}) hp_gather_finish(ctx, *it);   // the sparse-attention boundary
  hp_each_rank(ctx, [&](int rank, int c, int) { sparse_attention(rank, c); });
}

void build_hp_dsa_backward(ScheduleContext& ctx) {
  const auto& z = ctx.sz;
  const DsaDims x = dims(ctx);
  const bool timing_only = !ctx.options.with_payloads;
  if (timing_only) {
    hp_each_rank(ctx, [&](int rank, int c, int) {
      const AttentionShape a = sparse_shape(ctx, c, x);
      // Gradients of q_index, index_k and the weights over the kept pairs: twice the indexer's forward work.
      ctx.add(rank, TaskKind::Gemm, Stream::Main, "indexer_loss_bwd", -1, 2 * 2.0 * z.b * x.n * (x.d + 1) * a.pairs,
              2 * sparse_bytes(ctx, a, Pass::Forward));
    });
    // The index key's gradient is full-length on every rank: reduce-scattered like dK (no payload).
    const HpShape h = hp_shape(ctx);
    const double shard = hp_bytes(ctx, h.L, 1, x.d);
    const auto& groups = ctx.layout.groups(GroupKind::HP_COLOSSAL);
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      CommOp c = comm_op(TaskKind::ReduceScatter, GroupKind::HP_COLOSSAL, gi);
      c.bytes_per_rank = shard;
      for (int rank : groups[gi]) {
        const TaskId t = ctx.add_nccl(rank, TaskKind::ReduceScatter, Stream::NcclCp, Stream::Main,
                                      "reduce_scatter_dindex_k", -1, (h.co - 1) * shard);
        c.ranks.push_back(rank);
        c.tasks.push_back(t);
      }
      ctx.add_comm(std::move(c));
    }
  }
  hp_each_rank(ctx, [&](int rank, int c, int) {
    const AttentionShape a = sparse_shape(ctx, c, x);
    const TaskId t = ctx.add(rank, TaskKind::AttentionBackward, Stream::Main, "attn_bwd", -1,
                             attention_flops(a, Pass::Backward), sparse_bytes(ctx, a, Pass::Backward));
    ctx.set_attention(t, a);
    ctx.payload(t, PayloadOp::AttnBwd,
                {ctx.key(BufName::Q), ctx.key(BufName::FullKV, kGK), ctx.key(BufName::FullKV, kGV), ctx.key(BufName::Out),
                 ctx.key(BufName::DOut), ctx.key(BufName::Lse, 0), ctx.key(BufName::TopK)},
                {ctx.key(BufName::DQ), ctx.key(BufName::FullDkv, 0), ctx.key(BufName::FullDkv, 1)}, tile(ctx, c));
  });
  hp_reduce_scatter(ctx, "dk", BufName::FullDkv, 0, z.d_qk, kSlotRsDk, BufName::DK, 0);
  hp_reduce_scatter(ctx, "dv", BufName::FullDkv, 1, z.d_v, kSlotRsDv, BufName::DV, 0);
  for (const auto& grp : ctx.layout.groups(GroupKind::CP))
    for (int rank : grp) ctx.wait(rank, Stream::Main, ctx.last(rank, Stream::NcclCp));
}

}  // namespace hcpsim::schedule
