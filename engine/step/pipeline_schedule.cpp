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

namespace {

[[noreturn]] void fail(const std::string& msg) { throw std::invalid_argument("simulate_pipeline: " + msg); }

void check_inputs(const PipelineInputs& in) {
  const int p = in.stages, v = in.chunks, m = in.micro_batches;
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
}

// The replay of one step: every stage's steps in Megatron's order, run in time order.
class PipelineReplay {
 public:
  explicit PipelineReplay(const PipelineInputs& in)
      : in_(in), p_(in.stages), v_(in.chunks), m_(in.micro_batches),
        end_(static_cast<std::size_t>(2) * m_ * v_ * p_, kUnset), arrive_(end_.size(), kUnset),
        order_(static_cast<std::size_t>(p_)), next_(order_.size(), 0), free_at_(order_.size(), 0.0),
        dp_free_(order_.size(), 0.0), send_free_(order_.size(), 0.0), recv_free_(order_.size(), 0.0),
        comm_(order_.size()), queued_(order_.size(), 0) {
    for (int s = 0; s < p_; ++s) order_[static_cast<std::size_t>(s)] = schedule_order(s, p_, v_, m_);
    out_.stage_busy_s.assign(order_.size(), 0.0);
    out_.stage_end_s.assign(order_.size(), 0.0);
  }

  PipelineTimes run();

 private:
  static constexpr double kUnset = -1.0;
  // NCCL calls running beside a stage's compute: [start, end) and the share of the GPU they take.
  struct Busy {
    double start_s, end_s, load;
  };

  // Index of (forward?, micro-batch, chunk, stage) in end_ and arrive_.
  std::size_t idx(bool fwd, int mb, int c, int s) const {
    return ((static_cast<std::size_t>(fwd ? 1 : 0) * m_ + mb) * v_ + c) * p_ + s;
  }
  // Every step sends its output on when p > 1, except the loss chunk's forward and the first
  // chunk's backward (the same stage's backward consumes them).
  bool sends(bool fwd, int c, int s) const {
    return p_ > 1 && (fwd ? !(s == p_ - 1 && c == v_ - 1) : !(s == 0 && c == 0));
  }
  double ready(const PipelineOp& op, int s) const;
  double stretched(std::size_t si, double t, double work_s) const;
  void offer(int q);
  void run_step(int s, double start);
  double send(const PipelineOp& op, int s, double finish);   // returns the arrival

  const PipelineInputs& in_;
  const int p_, v_, m_;
  std::vector<double> end_;      // end time of each step (kUnset until it has run)
  // When each step's output reaches its consumer on the next (previous) stage: end + transfer, later
  // when the stage's previous send still holds its links (serialize_sends).
  std::vector<double> arrive_;
  std::vector<std::vector<PipelineOp>> order_;
  std::vector<std::size_t> next_;
  std::vector<double> free_at_;
  std::vector<double> dp_free_;     // end of the stage's last bucket
  std::vector<double> send_free_;   // arrival of the stage's last send
  std::vector<double> recv_free_;   // arrival of its last receive
  std::vector<std::vector<Busy>> comm_;
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_;
  std::vector<char> queued_;
  PipelineTimes out_;
};

// When the input of an op is ready (kUnset while its producer has not run).
double PipelineReplay::ready(const PipelineOp& op, int s) const {
  if (op.forward) {
    if (s > 0) return arrive_[idx(true, op.micro_batch, op.chunk, s - 1)];
    if (op.chunk == 0) return 0.0;
    const std::size_t i = idx(true, op.micro_batch, op.chunk - 1, p_ - 1);
    return p_ > 1 ? arrive_[i] : end_[i];
  }
  if (s < p_ - 1) return arrive_[idx(false, op.micro_batch, op.chunk, s + 1)];
  if (op.chunk == v_ - 1) return end_[idx(true, op.micro_batch, v_ - 1, p_ - 1)];
  const std::size_t i = idx(false, op.micro_batch, op.chunk + 1, 0);
  return p_ > 1 ? arrive_[i] : end_[i];
}

// Wall seconds `work_s` of compute takes from `t` on stage si, stretched by the calls it overlaps.
double PipelineReplay::stretched(std::size_t si, double t, double work_s) const {
  double dur = work_s;
  for (const Busy& b : comm_[si]) {
    const double overlap = std::min(b.end_s, t + work_s) - std::max(b.start_s, t);
    if (overlap > 0) dur += b.load * overlap;
  }
  return dur;
}

// Queues stage q by the start of its next step once that step's input has arrived.
void PipelineReplay::offer(int q) {
  const auto qi = static_cast<std::size_t>(q);
  if (queued_[qi] || next_[qi] >= order_[qi].size()) return;
  const double r = ready(order_[qi][next_[qi]], q);
  if (r < 0) return;
  queue_.emplace(std::max(free_at_[qi], r), q);
  queued_[qi] = 1;
}

// Runs stage s's next step from `start`: its compute (in gradient-bucket pieces during the last
// micro-batch's backward), then the send of its output.
void PipelineReplay::run_step(int s, double start) {
  const auto si = static_cast<std::size_t>(s);
  const PipelineOp& op = order_[si][next_[si]];
  const auto ci = static_cast<std::size_t>(op.chunk);
  std::erase_if(comm_[si], [&](const Busy& b) { return b.end_s <= start; });
  const bool buckets = !op.forward && op.micro_batch == m_ - 1 && in_.grad_bucket_s > 0;
  const int per_chunk = in_.grad_buckets.empty() ? in_.grad_buckets_per_chunk : in_.grad_buckets[si][ci];
  const int pieces = buckets ? std::max(1, per_chunk) : 1;
  const double work = (op.forward ? in_.forward_s[si][ci] : in_.backward_s[si][ci]) / pieces;
  double t = start;
  for (int k = 0; k < pieces; ++k) {
    t += stretched(si, t, work);
    if (!buckets) continue;
    const double b0 = std::max(dp_free_[si], t);
    dp_free_[si] = b0 + in_.grad_bucket_s;
    comm_[si].push_back({b0, dp_free_[si], in_.grad_bucket_load});
  }
  const double finish = t;
  end_[idx(op.forward, op.micro_batch, op.chunk, s)] = finish;
  const double sent = sends(op.forward, op.chunk, s) ? send(op, s, finish) : finish;
  free_at_[si] = in_.blocking_sends ? sent : finish;
  out_.stage_busy_s[si] += finish - start;
  if (s == 0 && op.forward && op.micro_batch == 0 && op.chunk == 0) out_.first_forward_s = finish;
  ++next_[si];
}

// The transfer of a step's output to the next stage forward (the last sends chunk c + 1 to the
// first) or to the previous one backward.
double PipelineReplay::send(const PipelineOp& op, int s, double finish) {
  const auto si = static_cast<std::size_t>(s);
  const auto di = static_cast<std::size_t>(op.forward ? (s + 1) % p_ : (s + p_ - 1) % p_);
  const std::size_t me = idx(op.forward, op.micro_batch, op.chunk, s);
  // A stage's sends run in issue order on its P2P stream; with shared links a transfer also waits
  // for the receiver's previous receive.
  const double send_start = std::max({finish, send_free_[si], in_.serialize_sends ? recv_free_[di] : 0.0});
  arrive_[me] = send_start + (op.forward ? in_.p2p_forward_s : in_.p2p_backward_s);
  send_free_[si] = recv_free_[di] = arrive_[me];
  comm_[si].push_back({send_start, arrive_[me], in_.send_load});
  return arrive_[me];
}

// Chronological replay: the stage whose next step can start first runs it (so that transfers book
// the links they share in the order they happen); equal starts go to the lower stage. The stages
// whose next step has its input wait in a queue by start: a start is final once the input has
// arrived (free_at changes only when the stage itself runs), and a step's output can only make the
// next step of its own stage or of a neighbour ready.
PipelineTimes PipelineReplay::run() {
  std::size_t total = 0;
  for (const auto& o : order_) total += o.size();
  for (int q = 0; q < p_; ++q) offer(q);
  for (std::size_t done = 0; done < total; ++done) {
    if (queue_.empty()) fail("the schedule deadlocked (internal error)");
    const auto [start, s] = queue_.top();
    queue_.pop();
    queued_[static_cast<std::size_t>(s)] = 0;
    run_step(s, start);
    offer(s);
    offer((s + 1) % p_);
    offer((s + p_ - 1) % p_);
  }
  double busiest = 0;
  for (std::size_t si = 0; si < order_.size(); ++si) {
    out_.stage_end_s[si] = free_at_[si];
    out_.makespan_s = std::max(out_.makespan_s, free_at_[si]);
    busiest = std::max(busiest, out_.stage_busy_s[si]);
  }
  out_.grad_reduced_s = dp_free_;
  out_.bubble_fraction = out_.makespan_s > 0 ? 1.0 - busiest / out_.makespan_s : 0.0;
  return out_;
}

}  // namespace

PipelineTimes simulate_pipeline(const PipelineInputs& in) {
  check_inputs(in);
  return PipelineReplay(in).run();
}

}  // namespace hcpsim::step
