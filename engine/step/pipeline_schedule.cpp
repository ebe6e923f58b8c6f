#include "engine/step/pipeline_schedule.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <stdexcept>
#include <string>

namespace hcpsim::step {

std::vector<PipelineOp> schedule_order(int stage, int stages, int chunks, int micro_batches) {
  std::vector<PipelineOp> ops;
  const int p = stages, v = chunks, m = micro_batches;
  if (v == 1) {
    const int warmup = std::min(p - stage - 1, m);
    for (int i = 0; i < warmup; ++i) ops.push_back({true, i, 0});
    for (int i = 0; i < m - warmup; ++i) {
      ops.push_back({true, warmup + i, 0});
      ops.push_back({false, i, 0});
    }
    for (int i = m - warmup; i < m; ++i) ops.push_back({false, i, 0});
    return ops;
  }
  // Interleaved: virtual micro-batch k runs chunk (k mod p*v) / p of micro-batch (k / (p*v))*p + k mod p
  // (forward); backward visits the chunks in reverse order.
  const int total = m * v;
  auto op_of = [&](int k, bool forward) {
    const int in_group = k % (p * v);
    const int chunk = in_group / p;
    const int mb = (k / (p * v)) * p + k % p;
    return PipelineOp{forward, mb, forward ? chunk : v - 1 - chunk};
  };
  const int warmup = m == p ? total : std::min((p - stage - 1) * 2 + (v - 1) * p, total);
  for (int k = 0; k < warmup; ++k) ops.push_back(op_of(k, true));
  for (int i = 0; i < total - warmup; ++i) {
    ops.push_back(op_of(warmup + i, true));
    ops.push_back(op_of(i, false));
  }
  for (int k = total - warmup; k < total; ++k) ops.push_back(op_of(k, false));
  return ops;
}

PipelineTimes simulate_pipeline(const PipelineInputs& in) {
  const int p = in.stages, v = in.chunks, m = in.micro_batches;
  auto fail = [](const std::string& msg) { throw std::invalid_argument("simulate_pipeline: " + msg); };
  if (p < 1 || v < 1 || m < 1) fail("stages, chunks and micro-batches must be >= 1");
  if (v > 1 && m % p != 0)
    fail("the interleaved schedule needs micro-batches (" + std::to_string(m) + ") divisible by stages (" +
         std::to_string(p) + ")");
  const auto shape_ok = [&](const std::vector<std::vector<double>>& t) {
    if (static_cast<int>(t.size()) != p) return false;
    for (const auto& row : t)
      if (static_cast<int>(row.size()) != v) return false;
    return true;
  };
  if (!shape_ok(in.forward_s) || !shape_ok(in.backward_s)) fail("time tables must be [stages][chunks]");
  bool buckets_ok = in.grad_buckets.empty() || static_cast<int>(in.grad_buckets.size()) == p;
  for (const auto& row : in.grad_buckets) buckets_ok = buckets_ok && static_cast<int>(row.size()) == v;
  if (!buckets_ok) fail("grad_buckets must be empty or [stages][chunks]");

  constexpr double kUnset = -1.0;
  // end time of (forward?, micro-batch, chunk, stage)
  std::vector<double> end(static_cast<std::size_t>(2) * m * v * p, kUnset);
  auto idx = [&](bool fwd, int mb, int c, int s) {
    return ((static_cast<std::size_t>(fwd ? 1 : 0) * m + mb) * v + c) * p + s;
  };
  // When each op's output reaches its consumer on the next (previous) stage: end + transfer, later
  // when the stage's previous send still holds its links (serialize_sends).
  std::vector<double> arrive(end.size(), kUnset);
  // Every step sends its output on when p > 1, except the loss chunk's forward and the first
  // chunk's backward (the same stage's backward consumes them).
  auto sends = [&](bool fwd, int c, int s) { return p > 1 && (fwd ? !(s == p - 1 && c == v - 1) : !(s == 0 && c == 0)); };
  // When the input of an op is ready (kUnset while its producer has not run).
  auto ready = [&](const PipelineOp& op, int s) -> double {
    if (op.forward) {
      if (s > 0) return arrive[idx(true, op.micro_batch, op.chunk, s - 1)];
      if (op.chunk == 0) return 0.0;
      const std::size_t i = idx(true, op.micro_batch, op.chunk - 1, p - 1);
      return p > 1 ? arrive[i] : end[i];
    }
    if (s < p - 1) return arrive[idx(false, op.micro_batch, op.chunk, s + 1)];
    if (op.chunk == v - 1) return end[idx(true, op.micro_batch, v - 1, p - 1)];
    const std::size_t i = idx(false, op.micro_batch, op.chunk + 1, 0);
    return p > 1 ? arrive[i] : end[i];
  };

  std::vector<std::vector<PipelineOp>> order(static_cast<std::size_t>(p));
  for (int s = 0; s < p; ++s) order[static_cast<std::size_t>(s)] = schedule_order(s, p, v, m);
  std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
  std::vector<double> free_at(static_cast<std::size_t>(p), 0.0);
  std::vector<double> dp_free(static_cast<std::size_t>(p), 0.0);     // end of the stage's last bucket
  std::vector<double> send_free(static_cast<std::size_t>(p), 0.0);   // arrival of the stage's last send
  std::vector<double> recv_free(static_cast<std::size_t>(p), 0.0);   // arrival of its last receive
  // NCCL calls running beside a stage's compute: [start, end) and the share of the GPU they take.
  struct Busy {
    double start_s, end_s, load;
  };
  std::vector<std::vector<Busy>> comm(static_cast<std::size_t>(p));
  // Wall seconds `work_s` of compute takes from `t` on stage si, stretched by the calls it overlaps.
  auto stretched = [&](std::size_t si, double t, double work_s) {
    double dur = work_s;
    for (const Busy& b : comm[si]) {
      const double overlap = std::min(b.end_s, t + work_s) - std::max(b.start_s, t);
      if (overlap > 0) dur += b.load * overlap;
    }
    return dur;
  };
  PipelineTimes out;
  out.stage_busy_s.assign(static_cast<std::size_t>(p), 0.0);
  out.stage_end_s.assign(static_cast<std::size_t>(p), 0.0);
  std::size_t done = 0, total = 0;
  for (const auto& o : order) total += o.size();
  // Chronological replay: the stage whose next step can start first runs it (so that transfers
  // book the links they share in the order they happen); equal starts go to the lower stage. The
  // stages whose next step has its input wait in a queue by start: a start is final once the input
  // has arrived (free_at changes only when the stage itself runs), and a step's output can only make
  // the next step of its own stage or of a neighbour ready.
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  std::vector<char> queued(static_cast<std::size_t>(p), 0);
  auto offer = [&](int q) {
    const auto qi = static_cast<std::size_t>(q);
    if (queued[qi] || next[qi] >= order[qi].size()) return;
    const double r = ready(order[qi][next[qi]], q);
    if (r < 0) return;
    queue.emplace(std::max(free_at[qi], r), q);
    queued[qi] = 1;
  };
  for (int q = 0; q < p; ++q) offer(q);
  while (done < total) {
    if (queue.empty()) fail("the schedule deadlocked (internal error)");
    const auto [start, s] = queue.top();
    queue.pop();
    queued[static_cast<std::size_t>(s)] = 0;
    {
      const auto si = static_cast<std::size_t>(s);
      {
        const PipelineOp& op = order[si][next[si]];
        const auto ci = static_cast<std::size_t>(op.chunk);
        std::erase_if(comm[si], [&](const Busy& b) { return b.end_s <= start; });
        const bool buckets = !op.forward && op.micro_batch == m - 1 && in.grad_bucket_s > 0;
        const int per_chunk = in.grad_buckets.empty() ? in.grad_buckets_per_chunk : in.grad_buckets[si][ci];
        const int pieces = buckets ? std::max(1, per_chunk) : 1;
        const double work = (op.forward ? in.forward_s[si][ci] : in.backward_s[si][ci]) / pieces;
        double t = start;
        for (int k = 0; k < pieces; ++k) {
          t += stretched(si, t, work);
          if (!buckets) continue;
          const double b0 = std::max(dp_free[si], t);
          dp_free[si] = b0 + in.grad_bucket_s;
          comm[si].push_back({b0, dp_free[si], in.grad_bucket_load});
        }
        const double finish = t;
        const std::size_t me = idx(op.forward, op.micro_batch, op.chunk, s);
        end[me] = finish;
        if (sends(op.forward, op.chunk, s)) {
          // Destination stage: the next one forward (the last sends chunk c + 1 to the first), the
          // previous one backward.
          const auto di = static_cast<std::size_t>(op.forward ? (s + 1) % p : (s + p - 1) % p);
          // A stage's sends run in issue order on its P2P stream; with shared links a transfer also
          // waits for the receiver's previous receive.
          const double send_start =
              std::max({finish, send_free[si], in.serialize_sends ? recv_free[di] : 0.0});
          arrive[me] = send_start + (op.forward ? in.p2p_forward_s : in.p2p_backward_s);
          send_free[si] = recv_free[di] = arrive[me];
          comm[si].push_back({send_start, arrive[me], in.send_load});
        }
        free_at[si] = finish;
        out.stage_busy_s[si] += finish - start;
        if (s == 0 && op.forward && op.micro_batch == 0 && op.chunk == 0) out.first_forward_s = finish;
        ++next[si];
        ++done;
      }
    }
    offer(s);
    offer((s + 1) % p);
    offer((s + p - 1) % p);
  }
  double busiest = 0;
  for (int s = 0; s < p; ++s) {
    const auto si = static_cast<std::size_t>(s);
    out.stage_end_s[si] = free_at[si];
    out.makespan_s = std::max(out.makespan_s, free_at[si]);
    busiest = std::max(busiest, out.stage_busy_s[si]);
  }
  out.grad_reduced_s = dp_free;
  out.bubble_fraction = out.makespan_s > 0 ? 1.0 - busiest / out.makespan_s : 0.0;
  return out;
}

}  // namespace hcpsim::step
