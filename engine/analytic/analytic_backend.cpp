#include "engine/analytic/analytic_backend.h"
#include "engine/analytic/processor_sharing_gpu.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "engine/analytic/collective_time.h"
#include "engine/analytic/event_queue.h"
#include "engine/analytic/p2p_time_cache.h"
#include "engine/cost/route.h"
#include "engine/cost/task_cost_memo.h"

namespace hcpsim {
namespace {

enum class EvKind : std::uint8_t { GpuCheck, TaskDone, TransferDone };

// Events are TimedEvents (24 bytes: the queue is the inner loop): the push order in the high bits
// of `order`, the kind in its low two bits, so that equal times pop in push order; `a` is the rank
// (GpuCheck), task (TaskDone) or transfer (TransferDone), `b` the version (GpuCheck).
EvKind kind_of(const TimedEvent& e) { return static_cast<EvKind>(e.order & 3u); }

// A GPU's kernels under processor sharing; `version` invalidates GpuCheck events scheduled before
// a later arrival or departure.
struct Gpu {
  ProcessorSharingGpu ps;
  std::uint32_t version = 0;   // 32 bits: a stale check would need 2^32 later reschedules to look current
  double comm_load = 0;     // sum of CostModel::comm_compute_load of its running NCCL tasks
  std::uint32_t comm_running = 0;
};

struct XferState {
  TaskId src_task = 0, dst_task = 0;
  double bytes = 0;
};

// pending_[task] holds, in turn: the number of unfinished predecessors (before the task is
// ready), the number of its unfinished transfers (a ready SendRecv task), and kDone.
constexpr std::uint32_t kDone = 0xffffffffu;

class Simulation {
 public:
  Simulation(const TaskGraph& g, const RunContext& ctx, TraceSink& sink)
      : g_(g), ctx_(ctx), sink_(sink), routes_(ctx.scenario, ctx.cost), costs_(ctx.cost, g),
        p2p_times_(routes_, g.comms().size()) {}

  void run() {
    const std::size_t n = g_.size();
    pending_ = g_.in_degrees();
    ready_s_.assign(n, -1.0);
    // One per rank of the cluster; a task on a rank beyond it adds GPUs (gpu_of), so the million
    // tasks are not read once just for their largest rank.
    gpus_.resize(static_cast<std::size_t>(std::max(1, ctx_.scenario.world_size())));
    adjacency_ = &g_.adjacency();
    index_comms();
    std::vector<TaskId> ready;
    for (TaskId i = 0; i < n; ++i)
      if (pending_[i] == 0) ready.push_back(i);
    for (const TaskId id : ready) become_ready(id, 0.0);
    while (!events_.empty()) {
      const TimedEvent e = events_.top();
      events_.pop();
      now_ = e.t;
      switch (kind_of(e)) {
        case EvKind::GpuCheck: gpu_check(e.a, e.b); break;
        case EvKind::TaskDone: complete(e.a); break;
        case EvKind::TransferDone: transfer_done(e.a); break;
      }
    }
    if (completed_ != n) report_stuck();
  }

 private:
  void push(double t, EvKind k, std::uint32_t a, std::uint32_t b = 0) {
    events_.push({t, seq_++ << 2 | static_cast<std::uint64_t>(k), a, b});
  }

  // CSR lists of the transfers each SendRecv task takes part in (a count pass, then a fill pass).
  void index_comms() {
    const std::size_t n = g_.size();
    xfer_offset_.assign(n + 1, 0);
    op_ready_.assign(g_.comms().size(), 0);
    std::size_t member_ranks = 0;   // 1 + the largest rank of an op member (found by the checks below)
    // Per rank: its member task in the op being indexed, valid where op_of_rank[rank] == op + 1 (a
    // rank listed twice maps to its last task).
    std::vector<TaskId> task_of_rank;
    std::vector<std::uint32_t> op_of_rank;
    auto member_task = [&](std::int32_t rank, std::uint32_t stamp) {
      const auto r = static_cast<std::size_t>(rank);
      return rank >= 0 && r < op_of_rank.size() && op_of_rank[r] == stamp ? task_of_rank[r] : kNone;
    };
    auto for_each_transfer = [&](auto&& fn) {
      for (std::uint32_t oi = 0; oi < g_.comms().size(); ++oi) {
        const CommOp& op = g_.comms()[oi];
        if (op.kind != TaskKind::SendRecv) continue;
        for (std::size_t i = 0; i < op.ranks.size(); ++i) {
          if (op.ranks[i] < 0) continue;   // never a member then; otherwise < member_ranks
          const auto r = static_cast<std::size_t>(op.ranks[i]);
          task_of_rank[r] = op.tasks[i];
          op_of_rank[r] = oi + 1;
        }
        for (const Transfer& x : op.transfers) {
          const TaskId s = member_task(x.src, oi + 1), d = member_task(x.dst, oi + 1);
          if (s == kNone || d == kNone)
            throw std::invalid_argument("comm op " + std::to_string(oi) + ": transfer " + std::to_string(x.src) +
                                        " -> " + std::to_string(x.dst) + " names a rank that is not a member");
          fn(s, d, x);
        }
      }
    };
    for (std::uint32_t oi = 0; oi < g_.comms().size(); ++oi) {
      const CommOp& op = g_.comms()[oi];
      if (op.ranks.size() != op.tasks.size())
        throw std::invalid_argument("comm op " + std::to_string(oi) + ": ranks and tasks differ in length");
      for (std::size_t i = 0; i < op.ranks.size(); ++i) {
        if (op.tasks[i] >= n || g_.task(op.tasks[i]).rank != op.ranks[i])
          throw std::invalid_argument("comm op " + std::to_string(oi) + ": member " + std::to_string(i) +
                                      " is not a task of rank " + std::to_string(op.ranks[i]));
        if (op.ranks[i] >= 0) member_ranks = std::max(member_ranks, static_cast<std::size_t>(op.ranks[i]) + 1);
      }
    }
    task_of_rank.assign(member_ranks, kNone);
    op_of_rank.assign(member_ranks, 0);
    std::size_t count = 0;
    for_each_transfer([&](TaskId s, TaskId d, const Transfer&) {
      ++xfer_offset_[s + 1];
      if (d != s) ++xfer_offset_[d + 1];
      ++count;
    });
    for (std::size_t i = 0; i < n; ++i) xfer_offset_[i + 1] += xfer_offset_[i];
    xfers_.reserve(count);
    xfer_list_.resize(xfer_offset_[n]);
    std::vector<std::uint32_t> fill(xfer_offset_.begin(), xfer_offset_.end() - 1);
    for_each_transfer([&](TaskId s, TaskId d, const Transfer& x) {
      const auto id = static_cast<std::uint32_t>(xfers_.size());
      xfers_.push_back({s, d, x.bytes});
      xfer_list_[fill[s]++] = id;
      if (d != s) xfer_list_[fill[d]++] = id;
    });
  }

  void become_ready(TaskId id, double now) {
    ready_s_[id] = now;
    const Task& t = g_.task(id);
    if (!is_communication(t.kind)) {
      const double work = costs_.compute_seconds(t);
      gpu_of(t).ps.start(now, work, id);
      reschedule(static_cast<std::uint32_t>(t.rank));
      return;
    }
    if (t.comm == kNone || t.comm >= g_.comms().size())
      throw std::invalid_argument("communication task " + g_.display_name(t) + " on rank " +
                                  std::to_string(t.rank) + " has no CommOp");
    const CommOp& op = g_.comms()[t.comm];
    add_comm_load(t, +1);
    if (op.kind == TaskKind::SendRecv) {
      pending_[id] = xfer_offset_[id + 1] - xfer_offset_[id];   // now: unfinished transfers
      if (pending_[id] == 0) {
        push(now + ctx_.cost.comm_overhead_s(t), EvKind::TaskDone, id);
        return;
      }
      for (std::uint32_t k = xfer_offset_[id]; k < xfer_offset_[id + 1]; ++k) {
        const XferState& x = xfers_[xfer_list_[k]];
        const TaskId other = x.src_task == id ? x.dst_task : x.src_task;
        if (other == id || ready_s_[other] >= 0) {
          const Route r = routes_.route(g_.task(x.src_task).rank, g_.task(x.dst_task).rank);
          const double dur = p2p_times_.seconds(t.comm, r, x.bytes, costs_.p2p_comm(t.comm));
          push(now + dur, EvKind::TransferDone, xfer_list_[k]);
        }
      }
      return;
    }
    if (++op_ready_[t.comm] == op.tasks.size()) {
      const double dur = collective_seconds(op, routes_);
      for (const TaskId m : op.tasks) push(now + dur + ctx_.cost.comm_overhead_s(g_.task(m)), EvKind::TaskDone, m);
    }
  }

  // The GPU of task `t`'s rank (added when the rank lies beyond the cluster).
  Gpu& gpu_of(const Task& t) {
    const auto r = static_cast<std::size_t>(t.rank);
    if (r < gpus_.size()) return gpus_[r];   // also false for a negative rank
    if (t.rank < 0) throw_negative_rank(t);
    gpus_.resize(r + 1);
    return gpus_[r];
  }

  [[noreturn]] void throw_negative_rank(const Task& t) const {
    throw std::invalid_argument("task " + g_.display_name(t) + " has rank " + std::to_string(t.rank) +
                                "; ranks are 0 or more");
  }

  void reschedule(std::uint32_t rank) {
    Gpu& gpu = gpus_[rank];
    ++gpu.version;
    if (!gpu.ps.busy()) return;
    push(gpu.ps.next_end_s(now_), EvKind::GpuCheck, rank, gpu.version);
  }

  void gpu_check(std::uint32_t rank, std::uint32_t version) {
    Gpu& gpu = gpus_[rank];
    if (version != gpu.version) return;   // superseded by a later arrival or departure
    // The kernel this check was scheduled for is done; so is any other that finishes within rounding.
    std::vector<TaskId>& finished = scratch_;
    finished.clear();
    gpu.ps.pop_ended(now_, finished);
    reschedule(rank);
    // complete() can re-enter gpu_check only through events, never directly, so scratch_ is stable.
    for (std::size_t i = 0; i < finished.size(); ++i) complete(finished[i]);
  }

  void transfer_done(std::uint32_t xi) {
    const XferState& x = xfers_[xi];
    if (--pending_[x.src_task] == 0) transfers_over(x.src_task);
    if (x.dst_task != x.src_task && --pending_[x.dst_task] == 0) transfers_over(x.dst_task);
  }

  // Every transfer of send/recv task `id` has ended; it ends after its host overhead.
  void transfers_over(TaskId id) {
    const double over = ctx_.cost.comm_overhead_s(g_.task(id));
    if (over > 0) push(now_ + over, EvKind::TaskDone, id);
    else complete(id);
  }

  // A communication task starts (+1) or ends (-1): its GPU's compute share changes.
  void add_comm_load(const Task& t, int sign) {
    const double load = costs_.comm_compute_load(t);
    if (!(load > 0)) return;
    Gpu& gpu = gpu_of(t);
    if (sign > 0) {
      ++gpu.comm_running;
      gpu.comm_load += load;
    } else {
      --gpu.comm_running;
      gpu.comm_load = gpu.comm_running == 0 ? 0.0 : gpu.comm_load - load;   // exact 0 when idle
    }
    gpu.ps.set_comm_load(now_, gpu.comm_load);
    reschedule(static_cast<std::uint32_t>(t.rank));
  }

  void complete(TaskId id) {
    if (pending_[id] == kDone) return;
    pending_[id] = kDone;
    ++completed_;
    const Task& t = g_.task(id);
    if (is_communication(t.kind)) add_comm_load(t, -1);
    sink_.record_task(g_, t, ready_s_[id], now_);
    if (ctx_.progress && (completed_ % 65536 == 0 || completed_ == g_.size()))
      ctx_.progress(completed_, g_.size(), now_);
    for (auto [it, end] = boost::out_edges(id, *adjacency_); it != end; ++it) {
      const auto s = static_cast<TaskId>(boost::target(*it, *adjacency_));
      if (--pending_[s] == 0) become_ready(s, now_);
    }
  }

  void report_stuck() {
    std::ostringstream os;
    os << "analytic backend: " << (g_.size() - completed_) << " of " << g_.size() << " tasks never finished, e.g.";
    int shown = 0;
    for (TaskId i = 0; i < g_.size() && shown < 5; ++i) {
      if (pending_[i] == kDone) continue;
      const Task& t = g_.task(i);
      os << (shown ? ";" : "") << " rank " << t.rank << ' ' << g_.display_name(t);
      if (ready_s_[i] < 0) os << " (waits for " << pending_[i] << " unfinished dependencies)";
      else os << " (ready, waits for its communication peers)";
      ++shown;
    }
    throw std::runtime_error(os.str());
  }

  const TaskGraph& g_;
  const RunContext& ctx_;
  TraceSink& sink_;
  RouteModel routes_;
  TaskCostMemo costs_;
  P2pTimeCache p2p_times_;
  EventQueue events_;
  std::uint64_t seq_ = 0;
  double now_ = 0;
  std::size_t completed_ = 0;
  std::vector<std::uint32_t> pending_;
  std::vector<double> ready_s_;
  std::vector<Gpu> gpus_;
  const TaskGraph::Adjacency* adjacency_ = nullptr;
  std::vector<std::uint32_t> op_ready_;
  std::vector<XferState> xfers_;
  std::vector<std::uint32_t> xfer_offset_;
  std::vector<std::uint32_t> xfer_list_;
  std::vector<TaskId> scratch_;
};

}  // namespace

BackendCapabilities AnalyticBackend::capabilities() const {
  BackendCapabilities c;
  c.predicts_time = true;
  return c;
}

void AnalyticBackend::run(const TaskGraph& g, const RunContext& ctx, TraceSink& sink) {
  Simulation sim(g, ctx, sink);
  sim.run();
}

std::unique_ptr<Backend> make_analytic_backend() { return std::make_unique<AnalyticBackend>(); }

}  // namespace hcpsim
