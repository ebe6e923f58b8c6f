#include "engine/schedule/dfa_common.h"

#include <algorithm>

namespace hcpsim::schedule {

DfaBytes dfa_bytes(const ScheduleContext& ctx) {
  const auto& z = ctx.sz;
  const double tokens = static_cast<double>(z.b) * static_cast<double>(z.s);
  return {tokens * z.g_t * (z.d_qk + z.d_v) * z.e, tokens * z.h_t * z.d_qk * z.e, tokens * z.h_t * z.d_v * z.e,
          tokens * z.h_t * 4.0};
}

DfaFrame dfa_frame(const ScheduleContext& ctx, bool backward) {
  const auto& groups = ctx.layout.groups(GroupKind::CP);
  const int P = static_cast<int>(groups.front().size());
  return {groups, P, dfa_last_step(P), dfa_exchanges(P, backward), static_cast<std::size_t>(ctx.layout.world_size()),
          dfa_bytes(ctx)};
}

AttentionShape dfa_block_shape(const ScheduleContext& ctx, int t, const DfaWork& w) {
  const auto& z = ctx.sz;
  const MaskSection sec = t == 0 && z.causal ? MaskSection::Diagonal : MaskSection::Full;
  AttentionShape a = attention_shape(z.b, z.s, z.s, z.h_t, z.g_t, z.d_qk, z.d_v, sec);
  a.kv_source = w.kv_owner;
  return a;
}

std::vector<std::int64_t> dfa_block_args(std::int64_t s, bool causal) { return {0, s, 0, s, causal ? 1 : 0}; }

TaskId dfa_exchange(ScheduleContext& ctx, CommOp& op, int rank, const char* label, int k,
                  const std::vector<DfaMessage>& sends, const std::vector<DfaMessage>& receives) {
  std::vector<std::uint64_t> in, out;
  std::vector<std::int64_t> routes;
  double bytes = 0;
  const std::size_t n = std::max(sends.size(), receives.size());
  for (std::size_t i = 0; i < n; ++i) {
    const DfaMessage* s = i < sends.size() ? &sends[i] : nullptr;
    const DfaMessage* r = i < receives.size() ? &receives[i] : nullptr;
    routes.insert(routes.end(), {s ? s->peer : -1, r ? r->peer : -1, s ? static_cast<std::int64_t>(s->keys.size()) : 0,
                                 r ? static_cast<std::int64_t>(r->keys.size()) : 0});
    if (s) {
      in.insert(in.end(), s->keys.begin(), s->keys.end());
      bytes += s->bytes;
    }
    if (r) out.insert(out.end(), r->keys.begin(), r->keys.end());
  }
  if (n == 0) return kNone;
  const TaskId t = ctx.add_nccl(rank, TaskKind::SendRecv, Stream::NcclP2P, Stream::Main, label, k, bytes);
  ctx.payload(t, PayloadOp::SendRecv, std::move(in), std::move(out), std::move(routes));
  op.ranks.push_back(rank);
  op.tasks.push_back(t);
  for (const DfaMessage& s : sends)
    if (!s.keys.empty()) op.transfers.push_back({rank, s.peer, s.bytes});
  return t;
}

void DfaSum::add(ScheduleContext& ctx, int rank, int step, const std::vector<std::uint64_t>& keys, double bytes) {
  const bool last = seen_ == count_ - 1;
  if (seen_ == 0 && !last) {   // the first contribution is the running sum
    running_ = keys;
    ++seen_;
    return;
  }
  std::vector<std::uint64_t> next = final_;
  if (!last) {
    next.clear();
    for (std::size_t i = 0; i < keys.size(); ++i)
      next.push_back(ctx.key(name_, static_cast<int>(keys.size() * static_cast<std::size_t>(seen_) + i)));
  }
  std::vector<std::uint64_t> in;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (seen_ > 0) in.push_back(running_[i]);
    in.push_back(keys[i]);
  }
  // a copy reads and writes the tensors, an addition reads two and writes one
  const TaskId t = ctx.add(rank, TaskKind::Copy, Stream::Main, label_, step, 0, (seen_ == 0 ? 2 : 3) * bytes);
  ctx.payload(t, PayloadOp::Add, std::move(in), next);
  running_ = std::move(next);
  ++seen_;
}

}  // namespace hcpsim::schedule
