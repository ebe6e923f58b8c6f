// The Q, K and V projections as three GEMMs (AsyncContextParallel hooks each projection module):
//   [SP: tp all_gather x] -> q_proj -> after_q -> k_proj -> after_k -> v_proj -> after_v
// Same per-rank shapes as the fused qkv_proj of layer_ops.cpp (b*s tokens, 1/tp of each weight), so
// the sum of the three GEMMs' FLOPs equals the fused GEMM's.
#include "engine/schedule/comm_op.h"
#include "engine/schedule/hp_context_parallel.h"

namespace hcpsim::schedule {

namespace {

void tp_all_gather(ScheduleContext& ctx, double shard_bytes) {
  const auto& groups = ctx.layout.groups(GroupKind::TP);
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    CommOp c = comm_op(TaskKind::AllGather, GroupKind::TP, gi);
    c.bytes_per_rank = shard_bytes;
    const double n = static_cast<double>(groups[gi].size());
    for (int rank : groups[gi]) {
      const TaskId t = ctx.add_nccl(rank, TaskKind::AllGather, Stream::NcclTp, Stream::Main, "tp_all_gather_qkv_in",
                                    -1, (n - 1) * shard_bytes);
      ctx.wait(rank, Stream::Main, t);
      c.ranks.push_back(rank);
      c.tasks.push_back(t);
    }
    ctx.add_comm(std::move(c));
  }
}

}  // namespace

void add_hp_projections(ScheduleContext& ctx, const HpProjectionHooks& hooks) {
  const Scenario& s = ctx.scenario;
  const double e = ctx.sz.e, tp = s.tp();
  const double tokens = static_cast<double>(ctx.sz.b) * static_cast<double>(ctx.sz.s);
  const double hidden = s.model.hidden_size;
  const double q_cols = static_cast<double>(s.model.num_attention_heads) * s.head_dim() / tp;
  const double kv_cols = static_cast<double>(s.model.num_query_groups) * s.head_dim() / tp;
  if (s.model.sequence_parallel && s.tp() > 1) tp_all_gather(ctx, tokens * hidden * e / tp);
  // With payloads a projection "produces" its tensor: it copies the loader's input (version 0) to
  // the projected version that the collectives read.
  auto gemm = [&](const char* label, double n, BufName produced) {
    for (int r = 0; r < ctx.layout.world_size(); ++r) {
      const TaskId t = ctx.add(r, TaskKind::Gemm, Stream::Main, label, -1, 2.0 * tokens * hidden * n,
                               (tokens * hidden + hidden * n + tokens * n) * e);
      ctx.payload(t, PayloadOp::Add, {ctx.key(produced, 0)}, {ctx.key(produced, kProjectedVersion)});
    }
  };
  gemm("q_proj", q_cols, BufName::Q);
  if (hooks.after_q) hooks.after_q();
  gemm("k_proj", kv_cols, BufName::K);
  if (hooks.after_k) hooks.after_k();
  gemm("v_proj", kv_cols, BufName::V);
  if (hooks.after_v) hooks.after_v();
}

}  // namespace hcpsim::schedule
