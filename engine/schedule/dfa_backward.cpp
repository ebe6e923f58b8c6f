// DistFlashAttn backward (dfa_schedule.h), the forward's blocks again, per CP group of P ranks, CP
// rank r (global rank `rank`); everything on main but the exchanges (nccl:p2p, issued from main):
//
//   step 0      attn_bwd(Q, K, V, O, dO, LSE) causal diagonal -> dQ part, dK/dV part
//   step t>=1   local  attn_bwd(Q, K/V of r-t, O, dO, LSE)    -> dQ part; dK/dV sent to r-t
//               helper attn_bwd(Q, O, dO, LSE of r+P-t, K, V) -> dQ sent to r+P-t; dK/dV part
//   exchange k  (issued at the start of step k, waited at its end) fetch for step k+1: K/V, or
//               Q, O, dO and LSE for a helper; results of step k-1: a helper's dQ to the query
//               owner, a local block's dK/dV to the K/V owner. Exchange m+1 returns step m's results.
//   sums        dQ of rank r sums r+1 parts, dK/dV of rank r sum P-r parts (dq_acc, dkv_acc on
//               main as the parts arrive; an addition reads two tensors and writes one).
#include "engine/schedule/comm_op.h"
#include "engine/schedule/dfa_common.h"

namespace hcpsim::schedule {

namespace {

// Versions of the backward's staging buffers (per layer; distinct from the forward's).
int recv_k(int k) { return 5000 + 8 * k; }
int recv_v(int k) { return 5000 + 8 * k + 1; }
int recv_q(int k) { return 5000 + 8 * k + 2; }
int recv_o(int k) { return 5000 + 8 * k + 3; }
int recv_do(int k) { return 5000 + 8 * k + 4; }
int recv_lse(int k) { return 5000 + 8 * k + 5; }
int send_dk(int t) { return 6000 + 4 * t; }
int send_dv(int t) { return 6000 + 4 * t + 1; }
int send_dq(int t) { return 6000 + 4 * t + 2; }
int ret_dq(int t) { return 7000 + 4 * t; }
int ret_dk(int t) { return 7000 + 4 * t + 1; }
int ret_dv(int t) { return 7000 + 4 * t + 2; }

}  // namespace

void build_dfa_backward(ScheduleContext& ctx) {
  const auto [groups, P, m, X, W, B] = dfa_frame(ctx, /*backward=*/true);
  const auto& z = ctx.sz;
  const std::uint64_t lse = ctx.key(BufName::Lse, dfa_final_lse_version());
  std::vector<DfaSum> dq(W), dkv(W);
  for (const auto& grp : groups)
    for (int r = 0; r < P; ++r) {
      const auto i = static_cast<std::size_t>(grp[static_cast<std::size_t>(r)]);
      dq[i] = DfaSum(r + 1, BufName::Dq, {ctx.key(BufName::DQ)}, "dq_acc");
      dkv[i] = DfaSum(P - r, BufName::Dkv, {ctx.key(BufName::DK), ctx.key(BufName::DV)}, "dkv_acc");
    }

  for (int t = 0; t < X; ++t) {
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      const auto& grp = groups[gi];
      auto global = [&](int i) { return grp[static_cast<std::size_t>(i)]; };
      CommOp op = comm_op(TaskKind::SendRecv, GroupKind::CP, gi);
      for (int r = 0; r < P; ++r) {
        const int rank = grp[static_cast<std::size_t>(r)];
        const auto ri = static_cast<std::size_t>(rank);
        const DfaPeers x = dfa_peers(P, r, t, true);
        std::vector<DfaMessage> sends, receives;
        if (x.fetch_to >= 0)
          sends.push_back(x.fetch_to_helper
                              ? DfaMessage{global(x.fetch_to),
                                           {ctx.key(BufName::Q), ctx.key(BufName::Out), ctx.key(BufName::DOut), lse},
                                           B.q + 2 * B.out + B.lse}
                              : DfaMessage{global(x.fetch_to), {ctx.key(BufName::K), ctx.key(BufName::V)}, B.kv});
        if (x.result_to >= 0) sends.push_back({global(x.result_to), {ctx.key(BufName::Send, send_dq(t - 1))}, B.q});
        if (x.dkv_to >= 0)
          sends.push_back({global(x.dkv_to),
                           {ctx.key(BufName::Send, send_dk(t - 1)), ctx.key(BufName::Send, send_dv(t - 1))}, B.kv});
        if (x.fetch_from >= 0)
          receives.push_back(x.fetch_from_owner
                                 ? DfaMessage{global(x.fetch_from),
                                              {ctx.key(BufName::Recv, recv_q(t)), ctx.key(BufName::Recv, recv_o(t)),
                                               ctx.key(BufName::Recv, recv_do(t)), ctx.key(BufName::Recv, recv_lse(t))}}
                                 : DfaMessage{global(x.fetch_from),
                                              {ctx.key(BufName::Recv, recv_k(t)), ctx.key(BufName::Recv, recv_v(t))}});
        if (x.result_from >= 0) receives.push_back({global(x.result_from), {ctx.key(BufName::Recv, ret_dq(t - 1))}});
        if (x.dkv_from >= 0)
          receives.push_back({global(x.dkv_from),
                              {ctx.key(BufName::Recv, ret_dk(t - 1)), ctx.key(BufName::Recv, ret_dv(t - 1))}});
        const TaskId ex = dfa_exchange(ctx, op, rank, "send_recv_dfa", t, sends, receives);

        if (t <= m) {
          const DfaWork w = dfa_work(P, r, t);
          const AttentionShape a = dfa_block_shape(ctx, t, w);
          if (t == 0) {
            const TaskId at = ctx.add_attention(rank, Pass::Backward, Stream::Main, t, a);
            ctx.payload(at, PayloadOp::AttnBwd,
                        {ctx.key(BufName::Q), ctx.key(BufName::K), ctx.key(BufName::V), ctx.key(BufName::Out),
                         ctx.key(BufName::DOut), lse},
                        {ctx.key(BufName::BwdDq, 0), ctx.key(BufName::BwdDkv, 0), ctx.key(BufName::BwdDkv, 1)},
                        dfa_block_args(z.s, z.causal));
            dq[ri].add(ctx, rank, t, {ctx.key(BufName::BwdDq, 0)}, B.q);
            dkv[ri].add(ctx, rank, t, {ctx.key(BufName::BwdDkv, 0), ctx.key(BufName::BwdDkv, 1)}, B.kv);
          } else if (w.role == DfaRole::Local) {
            const TaskId at = ctx.add_attention(rank, Pass::Backward, Stream::Main, t, a);
            ctx.payload(at, PayloadOp::AttnBwd,
                        {ctx.key(BufName::Q), ctx.key(BufName::Recv, recv_k(t - 1)), ctx.key(BufName::Recv, recv_v(t - 1)),
                         ctx.key(BufName::Out), ctx.key(BufName::DOut), lse},
                        {ctx.key(BufName::BwdDq, t), ctx.key(BufName::Send, send_dk(t)), ctx.key(BufName::Send, send_dv(t))},
                        dfa_block_args(z.s, false));
            dq[ri].add(ctx, rank, t, {ctx.key(BufName::BwdDq, t)}, B.q);
          } else if (w.role == DfaRole::Help) {
            const TaskId at = ctx.add_attention(rank, Pass::Backward, Stream::Main, t, a);
            ctx.payload(at, PayloadOp::AttnBwd,
                        {ctx.key(BufName::Recv, recv_q(t - 1)), ctx.key(BufName::K), ctx.key(BufName::V),
                         ctx.key(BufName::Recv, recv_o(t - 1)), ctx.key(BufName::Recv, recv_do(t - 1)),
                         ctx.key(BufName::Recv, recv_lse(t - 1))},
                        {ctx.key(BufName::Send, send_dq(t)), ctx.key(BufName::BwdDkv, 2 * t),
                         ctx.key(BufName::BwdDkv, 2 * t + 1)},
                        dfa_block_args(z.s, false));
            dkv[ri].add(ctx, rank, t, {ctx.key(BufName::BwdDkv, 2 * t), ctx.key(BufName::BwdDkv, 2 * t + 1)}, B.kv);
          }
        }
        ctx.wait(rank, Stream::Main, ex);
        if (x.result_from >= 0) dq[ri].add(ctx, rank, t, {ctx.key(BufName::Recv, ret_dq(t - 1))}, B.q);
        if (x.dkv_from >= 0)
          dkv[ri].add(ctx, rank, t, {ctx.key(BufName::Recv, ret_dk(t - 1)), ctx.key(BufName::Recv, ret_dv(t - 1))}, B.kv);
      }
      if (!op.tasks.empty()) ctx.add_comm(std::move(op));
    }
  }
}

}  // namespace hcpsim::schedule
