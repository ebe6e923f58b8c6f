#include "engine/schedule/schedule_context.h"

#include <stdexcept>

#include "engine/schedule/comm_op.h"

namespace hcpsim::schedule {

Sizes sizes_of(const Scenario& s) {
  Sizes z;
  z.b = s.train.micro_batch_size;
  z.S = s.model.seq_length;
  z.s = s.cp() > 0 ? s.model.seq_length / s.cp() : 0;
  z.h_t = s.heads_per_tp_rank();
  z.g_t = s.kv_heads_per_tp_rank();
  z.d_qk = s.head_dim();
  z.d_v = s.head_dim();
  z.e = bytes_per_element(s.model.params_dtype);
  z.causal = s.model.attn_mask_type == MaskType::Causal;
  return z;
}

double attention_hbm_bytes(const Sizes& z, Pass pass, std::int64_t q_len, std::int64_t kv_len,
                           int heads, int kv_heads) {
  const double q = static_cast<double>(z.b) * static_cast<double>(q_len) * heads;
  const double kv = static_cast<double>(z.b) * static_cast<double>(kv_len) * kv_heads;
  const double e = z.e;
  const double qkv = q * z.d_qk * e + kv * (z.d_qk + z.d_v) * e;
  const double o = q * z.d_v * e, lse = q * 4.0;
  if (pass == Pass::Forward) return qkv + o + lse;
  // backward reads q, kv, out, dout, lse and writes dq, dk, dv
  return qkv + 2 * o + lse + q * z.d_qk * e + kv * (z.d_qk + z.d_v) * e;
}

ScheduleContext::ScheduleContext(TaskGraph& graph, const Scenario& s, const RankLayout& lay,
                                 const GraphOptions& opt)
    : g(graph), scenario(s), layout(lay), options(opt), sz(sizes_of(s)) {
  const auto n = static_cast<std::size_t>(lay.world_size());
  last_.resize(n);
  for (auto& a : last_) a.fill(kNone);
  pending_.resize(n);
}

void ScheduleContext::take_pending(int rank, Stream s, TaskId t) {
  auto& p = pending_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(s)];
  for (TaskId w : p)
    if (w != t) g.add_dep(w, t);
  p.clear();
}

TaskId ScheduleContext::add(int rank, TaskKind kind, Stream stream, std::string_view label, int step,
                            double flops, double bytes) {
  const TaskId id = g.add_task(label);   // its fields written in place
  Task& t = g.task(id);
  t.rank = rank;
  t.kind = kind;
  t.stream = stream;
  t.pass = pass;
  t.layer = static_cast<std::int16_t>(layer);
  t.step = step;
  t.flops = flops;
  t.bytes = bytes;
  TaskId& prev = last_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(stream)];
  if (prev != kNone) g.add_dep(prev, id);
  prev = id;
  take_pending(rank, stream, id);
  return id;
}

TaskId ScheduleContext::add_nccl(int rank, TaskKind kind, Stream nccl, Stream issuing,
                                 std::string_view label, int step, double bytes_sent) {
  const auto r = static_cast<std::size_t>(rank);
  const TaskId before_issue = last_[r][static_cast<std::size_t>(issuing)];
  if (nccl == issuing) {   // add() consumes the waits of `nccl`: keep a copy of them
    const std::vector<TaskId> waits = pending_[r][static_cast<std::size_t>(issuing)];
    const TaskId id = add(rank, kind, nccl, label, step, 0, bytes_sent);
    if (before_issue != kNone) g.add_dep(before_issue, id);
    for (TaskId w : waits) g.add_dep(w, id);
    return id;
  }
  // add() leaves the waits of another stream alone: read them in place (no copy per NCCL task).
  const TaskId id = add(rank, kind, nccl, label, step, 0, bytes_sent);
  if (before_issue != kNone) g.add_dep(before_issue, id);
  for (TaskId w : pending_[r][static_cast<std::size_t>(issuing)]) g.add_dep(w, id);
  return id;
}

void ScheduleContext::wait(int rank, Stream stream, TaskId t) {
  if (t == kNone) return;
  pending_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(stream)].push_back(t);
}

void ScheduleContext::wait_stream(int rank, Stream waiter, Stream waited) {
  wait(rank, waiter, last(rank, waited));
}

std::vector<TaskId> ScheduleContext::take_waits(int rank, Stream stream) {
  std::vector<TaskId> out;
  out.swap(pending_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(stream)]);
  return out;
}

void ScheduleContext::set_attention(TaskId t, const AttentionShape& a) {
  g.task(t).attention = g.add_attention(a);
}

TaskId ScheduleContext::add_attention(int rank, Pass pass, Stream stream, int step, const AttentionShape& a) {
  const bool fwd = pass == Pass::Forward;
  const TaskId t = add(rank, fwd ? TaskKind::AttentionForward : TaskKind::AttentionBackward, stream,
                       fwd ? "attn" : "attn_bwd", step, attention_flops(a, pass),
                       attention_hbm_bytes(sz, pass, a.q_len, a.kv_len, a.heads, a.kv_heads));
  set_attention(t, a);
  return t;
}

ScheduleContext::PreparedAttention ScheduleContext::prepare_attention(Pass pass, const AttentionShape& a) {
  return {g.add_attention(a), attention_flops(a, pass),
          attention_hbm_bytes(sz, pass, a.q_len, a.kv_len, a.heads, a.kv_heads)};
}

TaskId ScheduleContext::add_attention(int rank, Pass pass, Stream stream, int step, const PreparedAttention& a) {
  const bool fwd = pass == Pass::Forward;
  const TaskId t = add(rank, fwd ? TaskKind::AttentionForward : TaskKind::AttentionBackward, stream,
                       fwd ? "attn" : "attn_bwd", step, a.flops, a.bytes);
  g.task(t).attention = a.shape;
  return t;
}

void ScheduleContext::payload(TaskId t, PayloadOp op, std::vector<std::uint64_t> in,
                              std::vector<std::uint64_t> out, std::vector<std::int64_t> args) {
  if (!options.with_payloads) return;
  TaskPayload p;
  p.op = op;
  p.in = std::move(in);
  p.out = std::move(out);
  p.args = std::move(args);
  g.set_payload(t, g.add_payload(std::move(p)));
}

std::uint32_t ScheduleContext::add_comm(CommOp op) {
  const auto tasks = op.tasks;
  const std::uint32_t c = g.add_comm(std::move(op));
  for (TaskId t : tasks) g.task(t).comm = c;
  return c;
}

CommOp comm_op(TaskKind kind, GroupKind group, std::size_t group_index, int members) {
  CommOp op;
  op.kind = kind;
  op.group = group;
  op.group_index = static_cast<int>(group_index);
  if (members > 0) {
    const auto n = static_cast<std::size_t>(members);
    op.ranks.reserve(n);
    op.tasks.reserve(n);
    if (kind == TaskKind::SendRecv) op.transfers.reserve(n);
  }
  return op;
}

}  // namespace hcpsim::schedule
