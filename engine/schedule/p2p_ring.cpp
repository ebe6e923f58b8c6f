// p2p ring (TE AttnFuncWithCPAndKVP2P), one ring of size R, ring rank r, half-chunk c.
//
//  Data: rank r holds Q, K, V of chunks [C_r | C_{2R-1-r}] (2c tokens). KV_0 = cat(K, V).
//
//  forward (sigma_i = main for even i, cp for odd i; SR on nccl:p2p, issued from sigma_i)
//    main : kv_concat
//    i=0  : sigma_0: [SR0: KV_0 -> r+1, KV_1 <- r-1] attn(diag)
//    i=1  : sigma_1: wait SR0, [SR1] attn(section(1,r))   sigma_0: lse_merge(0)
//    i=2  : sigma_0: wait SR1, [SR2] attn(section(2,r))   sigma_1: wait merge0, lse_merge(1)
//    ...                                                  sigma_{R-1}: lse_merge(R-1)
//    main : wait cp, out_corr  out = sum_k exp(lse_k - lse) out_k
//
//   causal block matrix seen by ring rank r (rows: its Q halves, columns: KV of ring rank j)
//              j<r (lower)     j=r (diag)      j>r (upper)
//    C_r       [ full      ]   [ causal  ]     [   -     ]
//    C_{2R-1-r}[ full      ]   [ causal  ]     [ full  full ]   (lower: first KV half only)
//
//  backward (all on main; SR on nccl:p2p, direction reversed: send r-1, receive r+1)
//    kv_init B0.KV = saved KV (of ring rank r+1)
//    step i: wait C(i-1); C(i): send [KV_i | dKV_{i-1}] -> r-1, receive from r+1
//            (KV only at i=0, dKV only at i=R-1); attn_bwd(bwd_section); dq_acc;
//            wait C(i); dkv_add (travelling dKV of block j = r+i+1, one hop behind its KV)
//
//  Bytes of the memory-bound kernels: with the `memory_operators` term on (the default) they are
//  what TE's kernels read and write (docs/metrics.md section 9.4): lse_merge 0 is a clone and upper
//  steps merge half the LSE; out_corr sums TE's per-step corrections (step 0 scales and writes out,
//  lower/diagonal steps read out, out_i, lse, lse_i and write out, upper steps do it on the second
//  half); dq_acc of an upper step adds only the second Q half, dkv_add of a lower step only the first
//  KV half. With the term off: full-size merges and accumulations, one (R+1)(O+L) correction.
#include "engine/schedule/p2p_ring.h"

#include <stdexcept>

#include "engine/schedule/comm_op.h"
#include "engine/schedule/schedule_descriptor.h"

namespace hcpsim::schedule {

MaskSection ring_forward_section(int i, int r, bool causal) {
  if (!causal) return MaskSection::Full;
  if (i == 0) return MaskSection::Diagonal;
  return i <= r ? MaskSection::Lower : MaskSection::Upper;
}

MaskSection ring_backward_section(int i, int r, int R, bool causal) {
  if (!causal) return MaskSection::Full;
  if (i == R - 1) return MaskSection::Diagonal;
  return i >= R - r - 1 ? MaskSection::Lower : MaskSection::Upper;
}

double ring_kv_block_bytes(const Sizes& z, int kv_heads, std::int64_t c) {
  const double tokens = static_cast<double>(z.b) * static_cast<double>(2 * c);
  return tokens * kv_heads * (z.d_qk + z.d_v) * z.e;
}

RingPassWork ring_pass_work(int R, Pass pass) {
  if (pass == Pass::Forward) return {.compute_kernels = 2 * R + 2, .exchanges = R - 1};
  return {.compute_kernels = 3 * R + 1, .exchanges = R};
}

double ring_exchange_bytes(int R, Pass pass, int step, double block_bytes) {
  return pass == Pass::Forward ? block_bytes : ring_backward_message_bytes(step, R, block_bytes);
}

double ring_backward_message_bytes(int i, int R, double m_kv_bytes) {
  if (i == 0 || i == R - 1) return m_kv_bytes;
  return 2 * m_kv_bytes;
}

namespace {

struct Tile {
  std::int64_t q_off, q_len, kv_off, kv_len;
  bool causal;
};

Tile tile_of(MaskSection m, std::int64_t c) {
  switch (m) {
    case MaskSection::Diagonal: return {0, 2 * c, 0, 2 * c, true};
    case MaskSection::Lower: return {0, 2 * c, 0, c, false};
    case MaskSection::Upper: return {c, c, 0, 2 * c, false};
    default: return {0, 2 * c, 0, 2 * c, false};
  }
}

Stream sigma(int i) { return i % 2 == 0 ? Stream::Main : Stream::Cp; }

// Bytes of what one ring rank holds for its 2c tokens: K and V (what travels the ring), Q (and dQ),
// the attention output and the softmax LSE (fp32).
struct RankBytes {
  double kv, q, out, lse;
};

RankBytes rank_bytes(const ScheduleContext& ctx, const RingIO& io) {
  const auto& z = ctx.sz;
  const double tokens = static_cast<double>(z.b) * static_cast<double>(2 * io.c);
  return {ring_kv_block_bytes(z, io.kv_heads, io.c), tokens * io.heads * z.d_qk * z.e,
          tokens * io.heads * z.d_v * z.e, tokens * io.heads * 4.0};
}

AttentionShape shape_of(const ScheduleContext& ctx, const RingIO& io, MaskSection m, int source) {
  const Tile t = tile_of(m, io.c);
  AttentionShape a = attention_shape(ctx.sz.b, t.q_len, t.kv_len, io.heads, io.kv_heads, ctx.sz.d_qk, ctx.sz.d_v, m);
  a.kv_source = source;
  return a;
}

// The prepared attention of every (mask section, KV source) pair a ring issues, filled on first use
// (so shapes enter the graph's table in the order the kernels first use them).
class RingShapes {
 public:
  RingShapes(ScheduleContext& ctx, const RingIO& io, Pass pass, int R)
      : ctx_(ctx), io_(io), pass_(pass), R_(R), table_(static_cast<std::size_t>(4 * R)) {}
  const ScheduleContext::PreparedAttention& get(MaskSection m, int source) {
    auto& p = table_[static_cast<std::size_t>(static_cast<int>(m) * R_ + source)];
    if (p.shape == kNone) p = ctx_.prepare_attention(pass_, shape_of(ctx_, io_, m, source));
    return p;
  }

 private:
  ScheduleContext& ctx_;
  const RingIO& io_;
  Pass pass_;
  int R_;
  std::vector<ScheduleContext::PreparedAttention> table_;   // by section (diagonal..full) * R + source
};

std::vector<std::int64_t> tile_args(const Tile& t) {
  return {t.q_off, t.q_len, t.kv_off, t.kv_len, t.causal ? 1 : 0};
}

// The rings of `io.group`; throws std::invalid_argument when there is none or a ring has fewer than 2 ranks.
const std::vector<std::vector<int>>& ring_groups(const ScheduleContext& ctx, const RingIO& io) {
  const auto& groups = ctx.layout.groups(io.group);
  if (groups.empty())
    throw std::invalid_argument(std::string("p2p ring: the layout has no ") + to_string(io.group) + " groups");
  if (groups.front().size() < 2) throw std::invalid_argument("p2p ring: ring size must be at least 2");
  return groups;
}

}  // namespace

void build_ring_forward(ScheduleContext& ctx, const RingIO& io) {
  const auto& groups = ring_groups(ctx, io);
  const int R = static_cast<int>(groups.front().size());
  const bool causal = ctx.sz.causal;
  const RankBytes held = rank_bytes(ctx, io);
  const std::size_t W = static_cast<std::size_t>(ctx.layout.world_size());
  std::vector<TaskId> sr_prev(W, kNone), merge_prev(W, kNone);

  for (const auto& grp : groups)
    for (int r = 0; r < R; ++r) {
      const int rank = grp[static_cast<std::size_t>(r)];
      const TaskId t = ctx.add(rank, TaskKind::Copy, Stream::Main, "kv_concat", -1, 0, 2 * held.kv);
      if (ctx.with_payloads())
        ctx.payload(t, PayloadOp::Concat, {ctx.key(io.k), ctx.key(io.v)}, {ctx.key(BufName::KV, 0)});
    }

  const bool te_bytes = ctx.scenario.cluster.efficiency.terms.memory_operators;
  auto merge = [&](int rank, int r, int k) {
    ctx.wait(rank, sigma(k), merge_prev[static_cast<std::size_t>(rank)]);
    double bytes = 3 * held.lse;
    if (te_bytes && k == 0) bytes = 2 * held.lse;
    else if (te_bytes && ring_forward_section(k, r, causal) == MaskSection::Upper) bytes = 1.5 * held.lse;
    const TaskId t = ctx.add(rank, TaskKind::LseMerge, sigma(k), "lse_merge", k, 0, bytes);
    if (ctx.with_payloads()) {
      std::vector<std::uint64_t> in;
      if (k > 0) in.push_back(ctx.key(BufName::Lse, k - 1));
      in.push_back(ctx.key(BufName::StepLse, k));
      ctx.payload(t, PayloadOp::LseMerge, std::move(in), {ctx.key(BufName::Lse, k)});
    }
    merge_prev[static_cast<std::size_t>(rank)] = t;
  };

  RingShapes shapes(ctx, io, Pass::Forward, R);
  for (int i = 0; i < R; ++i) {
    const Stream st = sigma(i);
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      const auto& grp = groups[gi];
      CommOp op = i < R - 1 ? comm_op(TaskKind::SendRecv, io.group, gi, R) : CommOp{};
      for (int r = 0; r < R; ++r) {
        const int rank = grp[static_cast<std::size_t>(r)];
        const int next = grp[static_cast<std::size_t>((r + 1) % R)];
        const int prev = grp[static_cast<std::size_t>((r - 1 + R) % R)];
        ctx.wait(rank, st, sr_prev[static_cast<std::size_t>(rank)]);
        if (i < R - 1) {
          const TaskId sr = ctx.add_nccl(rank, TaskKind::SendRecv, Stream::NcclP2P, st, "send_recv_kv", i, held.kv);
          if (ctx.with_payloads())
            ctx.payload(sr, PayloadOp::SendRecv, {ctx.key(BufName::KV, i)}, {ctx.key(BufName::KV, i + 1)},
                        {next, prev});
          op.ranks.push_back(rank);
          op.tasks.push_back(sr);
          op.transfers.push_back({rank, next, held.kv});
          sr_prev[static_cast<std::size_t>(rank)] = sr;
        }
        const MaskSection m = ring_forward_section(i, r, causal);
        const TaskId at = ctx.add_attention(rank, Pass::Forward, st, i, shapes.get(m, ((r - i) % R + R) % R));
        if (ctx.with_payloads())
          ctx.payload(at, PayloadOp::AttnFwd, {ctx.key(io.q), ctx.key(BufName::KV, i)},
                      {ctx.key(BufName::StepOut, i), ctx.key(BufName::StepLse, i)}, tile_args(tile_of(m, io.c)));
        if (i >= 1) merge(rank, r, i - 1);
      }
      if (i < R - 1) ctx.add_comm(std::move(op));
    }
  }
  for (const auto& grp : groups)
    for (int r = 0; r < R; ++r) {
      const int rank = grp[static_cast<std::size_t>(r)];
      merge(rank, r, R - 1);
      ctx.wait_stream(rank, Stream::Main, Stream::Cp);
      double corr_bytes = (R + 1) * held.out + (R + 1) * held.lse;
      if (te_bytes) {
        corr_bytes = 2 * held.out + 2 * held.lse;   // step 0: out = out_0 * exp(lse_0 - lse)
        for (int k = 1; k < R; ++k) {
          const double full = 3 * held.out + 2 * held.lse;
          corr_bytes += ring_forward_section(k, r, causal) == MaskSection::Upper ? full / 2 : full;
        }
      }
      const TaskId t = ctx.add(rank, TaskKind::OutCorrection, Stream::Main, "out_corr", -1, 0, corr_bytes);
      if (!ctx.with_payloads()) continue;
      std::vector<std::uint64_t> in{ctx.key(BufName::Lse, R - 1)};
      for (int k = 0; k < R; ++k) {
        in.push_back(ctx.key(BufName::StepOut, k));
        in.push_back(ctx.key(BufName::StepLse, k));
      }
      ctx.payload(t, PayloadOp::OutCorrection, std::move(in), {ctx.key(io.out)});
    }
}

void build_ring_backward(ScheduleContext& ctx, const RingIO& io) {
  const auto& groups = ring_groups(ctx, io);
  const int R = static_cast<int>(groups.front().size());
  const bool causal = ctx.sz.causal;
  const RankBytes held = rank_bytes(ctx, io);
  const bool te_bytes = ctx.scenario.cluster.efficiency.terms.memory_operators;
  const std::size_t W = static_cast<std::size_t>(ctx.layout.world_size());
  std::vector<TaskId> c_prev(W, kNone);

  for (const auto& grp : groups)
    for (int r = 0; r < R; ++r) {
      const int rank = grp[static_cast<std::size_t>(r)];
      const TaskId t = ctx.add(rank, TaskKind::Copy, Stream::Main, "kv_init", -1, 0, 2 * held.kv);
      if (ctx.with_payloads()) ctx.payload(t, PayloadOp::Add, {buffer_key(BufName::KV, ctx.layer, R - 1)}, {ctx.key(BufName::BwdKV, 0)});
    }

  RingShapes shapes(ctx, io, Pass::Backward, R);
  const bool payloads = ctx.with_payloads();
  for (int i = 0; i < R; ++i) {
    const char* label = i == 0 ? "send_recv_kv" : (i == R - 1 ? "send_recv_dkv" : "send_recv_kv_dkv");
    const double bytes = ring_backward_message_bytes(i, R, held.kv);
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      const auto& grp = groups[gi];
      CommOp op = comm_op(TaskKind::SendRecv, io.group, gi, R);
      for (int r = 0; r < R; ++r) {
        const int rank = grp[static_cast<std::size_t>(r)];
        const int next = grp[static_cast<std::size_t>((r + 1) % R)];
        const int prev = grp[static_cast<std::size_t>((r - 1 + R) % R)];
        ctx.wait(rank, Stream::Main, c_prev[static_cast<std::size_t>(rank)]);
        const TaskId c = ctx.add_nccl(rank, TaskKind::SendRecv, Stream::NcclP2P, Stream::Main, label, i, bytes);
        if (payloads) {
          std::vector<std::uint64_t> in, out;
          if (i < R - 1) {
            in.push_back(ctx.key(BufName::BwdKV, i));
            out.push_back(ctx.key(BufName::BwdKV, i + 1));
          }
          if (i >= 1) {
            in.push_back(ctx.key(BufName::Dkv, i - 1));
            out.push_back(ctx.key(BufName::RecvDkv, i));
          }
          ctx.payload(c, PayloadOp::SendRecv, std::move(in), std::move(out), {prev, next});
        }
        op.ranks.push_back(rank);
        op.tasks.push_back(c);
        op.transfers.push_back({rank, prev, bytes});
        c_prev[static_cast<std::size_t>(rank)] = c;

        const MaskSection m = ring_backward_section(i, r, R, causal);
        const TaskId at = ctx.add_attention(rank, Pass::Backward, Stream::Main, i, shapes.get(m, (r + i + 1) % R));
        if (payloads)
          ctx.payload(at, PayloadOp::AttnBwd,
                      {ctx.key(io.q), ctx.key(BufName::BwdKV, i), ctx.key(io.out), ctx.key(io.dout),
                       ctx.key(BufName::Lse, R - 1)},
                      {ctx.key(BufName::BwdDq, i), ctx.key(BufName::BwdDkv, i)}, tile_args(tile_of(m, io.c)));

        const double dq_factor = te_bytes && m == MaskSection::Upper ? 0.5 : 1.0;   // second Q half only
        const TaskId dq = ctx.add(rank, TaskKind::Copy, Stream::Main, "dq_acc", i, 0,
                                  dq_factor * (i == 0 ? 2 * held.q : 3 * held.q));
        const std::uint64_t dq_out = i == R - 1 ? ctx.key(io.dq) : ctx.key(BufName::Dq, i);
        if (payloads && i == 0) ctx.payload(dq, PayloadOp::Add, {ctx.key(BufName::BwdDq, 0)}, {dq_out});
        else if (payloads) ctx.payload(dq, PayloadOp::Add, {ctx.key(BufName::Dq, i - 1), ctx.key(BufName::BwdDq, i)}, {dq_out});

        ctx.wait(rank, Stream::Main, c);
        const double dkv_factor = te_bytes && m == MaskSection::Lower ? 0.5 : 1.0;   // first KV half only
        const TaskId add = ctx.add(rank, TaskKind::Copy, Stream::Main, "dkv_add", i, 0,
                                   dkv_factor * (i == 0 ? 2 * held.kv : 3 * held.kv));
        if (!payloads) continue;
        if (i == 0) {
          ctx.payload(add, PayloadOp::Add, {ctx.key(BufName::BwdDkv, 0)}, {ctx.key(BufName::Dkv, 0)});
        } else if (i < R - 1) {
          ctx.payload(add, PayloadOp::Add, {ctx.key(BufName::RecvDkv, i), ctx.key(BufName::BwdDkv, i)},
                      {ctx.key(BufName::Dkv, i)});
        } else if (io.split_dkv) {
          ctx.payload(add, PayloadOp::Add, {ctx.key(BufName::RecvDkv, i), ctx.key(BufName::BwdDkv, i)},
                      {ctx.key(io.dk), ctx.key(io.dv)}, {ctx.sz.d_qk});
        } else {
          ctx.payload(add, PayloadOp::Add, {ctx.key(BufName::RecvDkv, i), ctx.key(BufName::BwdDkv, i)},
                      {ctx.key(io.dkv)});
        }
      }
      ctx.add_comm(std::move(op));
    }
  }
}

}  // namespace hcpsim::schedule
