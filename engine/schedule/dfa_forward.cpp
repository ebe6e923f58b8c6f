// DistFlashAttn forward (dfa_schedule.h), per CP group of P ranks, CP rank r (global rank `rank`):
//
//   step 0      main: attn(Q, K, V) causal diagonal              -> partial 0; lse_merge
//   step t>=1   nccl: exchange t-1 ... (issued at the start of step t-1, waited at its end)
//               main: local  attn(Q, K/V of r-t)      full       -> partial; lse_merge
//                     helper attn(Q of r+P-t, K, V)   full       -> sent back to r+P-t in exchange t+1
//   each step   nccl: exchange t (fetch for t+1, helper results of t-1), overlapping the step's kernel;
//               main waits for it, then merges a received partial (lse_merge: the rescale kernel)
//   end         main: out_corr  out = sum_k exp(lse_k - lse) out_k over the r+1 partials
//
// Bytes: the local partials accumulate inside the attention kernel (DistFlashAttn's kernel keeps the
// running output and statistics), so their lse_merge moves no bytes; a received partial is rescaled
// into the running output by a kernel that reads both outputs and both statistics (row max and sum,
// fp32) and writes one of each. The helper's partial travels as its output and the two statistics.
// The final normalisation is part of the last kernel (out_corr moves no bytes).
#include "engine/schedule/comm_op.h"
#include "engine/schedule/dfa_common.h"

namespace hcpsim::schedule {

namespace {

// Versions of the forward's staging buffers (per layer).
int recv_k(int k) { return 4 * k; }
int recv_v(int k) { return 4 * k + 1; }
int recv_q(int k) { return 4 * k + 2; }
int help_out(int t) { return 2 * t; }
int help_lse(int t) { return 2 * t + 1; }
int recv_out(int t) { return 1000 + 2 * t; }
int recv_lse(int t) { return 1001 + 2 * t; }

}  // namespace

int dfa_final_lse_version() { return 100000; }

void build_dfa_forward(ScheduleContext& ctx) {
  const auto [groups, P, m, X, W, B] = dfa_frame(ctx, /*backward=*/false);
  const auto& z = ctx.sz;
  std::vector<int> merged(W, 0);
  std::vector<std::vector<std::uint64_t>> partials(W);

  auto merge = [&](int rank, int r, std::uint64_t out, std::uint64_t lse, int step, bool remote) {
    int& n = merged[static_cast<std::size_t>(rank)];
    const bool last = n == r;   // rank r has r + 1 partials
    std::vector<std::uint64_t> in;
    if (n > 0) in.push_back(ctx.key(BufName::Lse, n - 1));
    in.push_back(lse);
    const TaskId t = ctx.add(rank, TaskKind::LseMerge, Stream::Main, "lse_merge", step, 0,
                             remote ? 3 * B.out + 6 * B.lse : 0.0);
    ctx.payload(t, PayloadOp::LseMerge, std::move(in), {ctx.key(BufName::Lse, last ? dfa_final_lse_version() : n)});
    partials[static_cast<std::size_t>(rank)].insert(partials[static_cast<std::size_t>(rank)].end(), {out, lse});
    ++n;
  };

  for (int t = 0; t < X; ++t) {   // X >= m + 1 exchanges; steps 0..m compute
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      const auto& grp = groups[gi];
      CommOp op = comm_op(TaskKind::SendRecv, GroupKind::CP, gi);
      for (int r = 0; r < P; ++r) {
        const int rank = grp[static_cast<std::size_t>(r)];
        auto global = [&](int i) { return grp[static_cast<std::size_t>(i)]; };
        TaskId ex = kNone;
        DfaPeers x;
        if (t < X) {
          x = dfa_peers(P, r, t, false);
          std::vector<DfaMessage> sends, receives;
          if (x.fetch_to >= 0)
            sends.push_back(x.fetch_to_helper ? DfaMessage{global(x.fetch_to), {ctx.key(BufName::Q)}, B.q}
                                              : DfaMessage{global(x.fetch_to), {ctx.key(BufName::K), ctx.key(BufName::V)}, B.kv});
          if (x.result_to >= 0)
            sends.push_back({global(x.result_to),
                             {ctx.key(BufName::Send, help_out(t - 1)), ctx.key(BufName::Send, help_lse(t - 1))},
                             B.out + 2 * B.lse});
          if (x.fetch_from >= 0)
            receives.push_back(x.fetch_from_owner ? DfaMessage{global(x.fetch_from), {ctx.key(BufName::Recv, recv_q(t))}}
                                                  : DfaMessage{global(x.fetch_from),
                                                               {ctx.key(BufName::Recv, recv_k(t)), ctx.key(BufName::Recv, recv_v(t))}});
          if (x.result_from >= 0)
            receives.push_back({global(x.result_from),
                                {ctx.key(BufName::Recv, recv_out(t - 1)), ctx.key(BufName::Recv, recv_lse(t - 1))}});
          ex = dfa_exchange(ctx, op, rank, "send_recv_dfa", t, sends, receives);
        }
        if (t <= m) {
          const DfaWork w = dfa_work(P, r, t);
          const AttentionShape a = dfa_block_shape(ctx, t, w);
          if (t == 0) {
            const TaskId at = ctx.add_attention(rank, Pass::Forward, Stream::Main, t, a);
            ctx.payload(at, PayloadOp::AttnFwd, {ctx.key(BufName::Q), ctx.key(BufName::K), ctx.key(BufName::V)},
                        {ctx.key(BufName::StepOut, 0), ctx.key(BufName::StepLse, 0)}, dfa_block_args(z.s, z.causal));
            merge(rank, r, ctx.key(BufName::StepOut, 0), ctx.key(BufName::StepLse, 0), t, false);
          } else if (w.role == DfaRole::Local) {
            const TaskId at = ctx.add_attention(rank, Pass::Forward, Stream::Main, t, a);
            ctx.payload(at, PayloadOp::AttnFwd,
                        {ctx.key(BufName::Q), ctx.key(BufName::Recv, recv_k(t - 1)), ctx.key(BufName::Recv, recv_v(t - 1))},
                        {ctx.key(BufName::StepOut, t), ctx.key(BufName::StepLse, t)}, dfa_block_args(z.s, false));
            merge(rank, r, ctx.key(BufName::StepOut, t), ctx.key(BufName::StepLse, t), t, false);
          } else if (w.role == DfaRole::Help) {
            const TaskId at = ctx.add_attention(rank, Pass::Forward, Stream::Main, t, a);
            ctx.payload(at, PayloadOp::AttnFwd,
                        {ctx.key(BufName::Recv, recv_q(t - 1)), ctx.key(BufName::K), ctx.key(BufName::V)},
                        {ctx.key(BufName::Send, help_out(t)), ctx.key(BufName::Send, help_lse(t))}, dfa_block_args(z.s, false));
          }
        }
        ctx.wait(rank, Stream::Main, ex);
        if (x.result_from >= 0)
          merge(rank, r, ctx.key(BufName::Recv, recv_out(t - 1)), ctx.key(BufName::Recv, recv_lse(t - 1)), t, true);
      }
      if (!op.tasks.empty()) ctx.add_comm(std::move(op));
    }
  }
  for (const auto& grp : groups)
    for (int r = 0; r < P; ++r) {
      const int rank = grp[static_cast<std::size_t>(r)];
      const TaskId t = ctx.add(rank, TaskKind::OutCorrection, Stream::Main, "out_corr", -1, 0, 0.0);
      std::vector<std::uint64_t> in{ctx.key(BufName::Lse, dfa_final_lse_version())};
      const auto& p = partials[static_cast<std::size_t>(rank)];
      in.insert(in.end(), p.begin(), p.end());
      ctx.payload(t, PayloadOp::OutCorrection, std::move(in), {ctx.key(BufName::Out)});
    }
}

}  // namespace hcpsim::schedule
