#include "sim/op_lowering.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace hcpsim::sim {

namespace {

std::string where(const TaskGraph& g, TaskId t) {
  return "task " + std::to_string(t) + " (rank " + std::to_string(g.task(t).rank) + " " + g.display_name(g.task(t)) + ")";
}

std::string op_name(std::uint32_t op, const CommOp& c) {
  return "comm op " + std::to_string(op) + " (" + to_string(c.kind) + ")";
}

bool is_collective_kind(TaskKind k) {
  return k == TaskKind::AllToAll || k == TaskKind::AllGather || k == TaskKind::ReduceScatter || k == TaskKind::AllReduce;
}

// Member lists agree with the member tasks; throws naming the op or the task.
void check_members(const TaskGraph& g, std::uint32_t op_index, const CommOp& op) {
  if (op.kind != TaskKind::SendRecv && !is_collective_kind(op.kind))
    throw std::invalid_argument(op_name(op_index, op) + ": kind is not a communication (valid: send_recv, all_to_all, "
                                "all_gather, reduce_scatter, all_reduce)");
  if (op.ranks.size() != op.tasks.size())
    throw std::invalid_argument(op_name(op_index, op) + ": " + std::to_string(op.ranks.size()) + " ranks but " +
                                std::to_string(op.tasks.size()) + " member tasks");
  for (std::size_t i = 0; i < op.tasks.size(); ++i) {
    const TaskId t = op.tasks[i];
    if (t >= g.size()) throw std::invalid_argument(op_name(op_index, op) + ": member task id " + std::to_string(t) + " out of range");
    const Task& task = g.task(t);
    if (task.comm != op_index || task.rank != op.ranks[i] || task.kind != op.kind)
      throw std::invalid_argument(where(g, t) + ": listed as member " + std::to_string(i) + " of " + op_name(op_index, op) +
                                  " but its comm/rank/kind fields disagree");
  }
}

// Rank -> first member index with that rank, for transfers. Small ops (most send/recv ops have two
// members) are scanned in place, without allocating.
class RankIndex {
 public:
  explicit RankIndex(const CommOp& op) : ranks_(op.ranks) {
    if (ranks_.size() <= kScanBelow) return;
    by_rank_.reserve(op.ranks.size());
    for (std::uint32_t i = 0; i < op.ranks.size(); ++i) by_rank_.emplace_back(op.ranks[i], i);
    std::stable_sort(by_rank_.begin(), by_rank_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  // Member index, or kNone.
  std::uint32_t find(std::int32_t rank) const {
    if (ranks_.size() <= kScanBelow) {
      for (std::uint32_t i = 0; i < ranks_.size(); ++i)
        if (ranks_[i] == rank) return i;
      return kNone;
    }
    auto it = std::lower_bound(by_rank_.begin(), by_rank_.end(), rank,
                               [](const auto& e, std::int32_t r) { return e.first < r; });
    return it != by_rank_.end() && it->first == rank ? it->second : kNone;
  }

 private:
  static constexpr std::size_t kScanBelow = 16;
  const std::vector<std::int32_t>& ranks_;
  std::vector<std::pair<std::int32_t, std::uint32_t>> by_rank_;
};

// Flow indices travel in 31 bits of a SimGrid activity tag (jit_executor.cpp).
constexpr std::uint64_t kMaxFlowsPerOp = 0x7fffffffu;

std::string transfer_text(const Transfer& tr) { return std::to_string(tr.src) + "->" + std::to_string(tr.dst); }

class Lowering {
 public:
  Lowering(const TaskGraph& g, std::uint32_t op_index, const PlanCosts& c, OpFlows& out)
      : g_(g), index_(op_index), op_(g.comms()[op_index]), c_(c), out_(out) {}

  void run() {
    check_members(g_, index_, op_);
    out_.kind = op_.kind;
    if (op_.tasks.empty()) return;
    if (op_.kind == TaskKind::SendRecv) return sendrecv();
    const auto n = static_cast<std::uint32_t>(op_.ranks.size());
    if (!(op_.bytes_per_rank >= 0))
      throw std::invalid_argument(where(g_, op_.tasks[0]) + ": bytes_per_rank must be >= 0, got " + std::to_string(op_.bytes_per_rank));
    if (n < 2 || op_.bytes_per_rank == 0) return;
    if (op_.kind == TaskKind::AllToAll) {
      const double piece = op_.bytes_per_rank / n;
      check_flow_count(static_cast<std::uint64_t>(n) * (n - 1), "pairwise");
      out_.flows.reserve(static_cast<std::size_t>(n) * (n - 1));
      for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t j = 0; j < n; ++j) {
          if (i == j || op_.ranks[i] == op_.ranks[j]) continue;
          add_flow(i, j, piece, 1, p2p_speedup(i, j));
        }
      out_.initial = static_cast<std::uint32_t>(out_.flows.size());
      return;
    }
    std::uint32_t steps = n - 1;
    double step_bytes = op_.bytes_per_rank;
    if (op_.kind == TaskKind::AllReduce) {
      steps = 2 * (n - 1);
      step_bytes = op_.bytes_per_rank / n;
    }
    check_flow_count(static_cast<std::uint64_t>(steps) * n, "ring");
    std::vector<double> speedups(n, 1.0);
    if (c_.ring_rail_speedups) {
      speedups = c_.ring_rail_speedups(op_);
      if (speedups.size() != n)
        throw std::invalid_argument(op_name(index_, op_) + ": " + std::to_string(speedups.size()) +
                                    " rail speed-ups for a ring of " + std::to_string(n) + " hops");
    }
    if (c_.ring_pipeline) return pipelined_ring(steps * step_bytes, speedups);
    out_.flows.reserve(static_cast<std::size_t>(steps) * n);
    for (std::uint32_t k = 0; k < steps; ++k)
      for (std::uint32_t i = 0; i < n; ++i) add_flow(i, (i + 1) % n, step_bytes, k == 0 ? 1 : 2, speedups[i]);
    out_.initial = n;
    out_.ring_members = n;
  }

 private:
  void check_flow_count(std::uint64_t flows, const char* what) const {
    if (flows > kMaxFlowsPerOp)
      throw std::invalid_argument(op_name(index_, op_) + ": " + std::to_string(op_.ranks.size()) + " members make " +
                                  std::to_string(flows) + " " + what + " flows, more than the " +
                                  std::to_string(kMaxFlowsPerOp) + " one op may have");
  }

  // Rail speed-up of the point-to-point flow member s -> member d (1 intra-node or without it).
  double p2p_speedup(std::uint32_t s, std::uint32_t d) const {
    const std::int32_t a = op_.ranks[s], b = op_.ranks[d];
    if (!c_.p2p_rail_speedup || a / c_.gpus_per_node == b / c_.gpus_per_node) return 1.0;
    return c_.p2p_rail_speedup(a, b);
  }

  // One flow per hop, all started with the op, each moving every step's chunk; the members end
  // tail_s after the last one.
  void pipelined_ring(double moved_bytes, const std::vector<double>& speedups) {
    const auto n = static_cast<std::uint32_t>(op_.ranks.size());
    const PlanCosts::RingPipelineCost p = c_.ring_pipeline(op_);
    if (p.hop_efficiency.size() != n)
      throw std::invalid_argument(op_name(index_, op_) + ": " + std::to_string(p.hop_efficiency.size()) +
                                  " pipeline efficiencies for a ring of " + std::to_string(n) + " hops");
    if (!(p.tail_s >= 0) || std::isinf(p.tail_s))
      throw std::invalid_argument(op_name(index_, op_) + ": ring latency must be a finite number >= 0 seconds, got " +
                                  std::to_string(p.tail_s));
    out_.flows.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) add_flow(i, (i + 1) % n, moved_bytes, 1, speedups[i], p.hop_efficiency[i]);
    out_.initial = n;
    out_.tail_s = p.tail_s;
  }

  // `efficiency` > 0 replaces PlanCosts::link_efficiency for this flow.
  void add_flow(std::uint32_t s, std::uint32_t d, double bytes, std::uint32_t gate, double speedup,
                double efficiency = 0) {
    OpFlow f;
    f.src = op_.ranks[s];
    f.dst = op_.ranks[d];
    f.src_member = s;
    f.dst_member = d;
    f.gate = gate;
    if (bytes > 0) {
      const bool inter = f.src / c_.gpus_per_node != f.dst / c_.gpus_per_node;
      const double eff = efficiency > 0 ? efficiency : c_.link_efficiency(op_.kind, bytes, inter);
      if (!(eff > 0 && eff <= 1))
        throw std::invalid_argument(where(g_, op_.tasks[s]) + ": link efficiency must be in (0, 1], got " + std::to_string(eff) +
                                    " for " + std::to_string(bytes) + " bytes " + (inter ? "inter-node" : "intra-node"));
      if (!(speedup >= 1) || std::isinf(speedup))
        throw std::invalid_argument(where(g_, op_.tasks[s]) + ": rail speed-up must be a finite number >= 1, got " +
                                    std::to_string(speedup));
      f.wire_bytes = bytes / eff / speedup;
    }
    out_.flows.push_back(f);
  }

  void sendrecv() {
    const auto n = static_cast<std::uint32_t>(op_.tasks.size());
    const RankIndex ranks(op_);
    out_.member_flows.assign(n, 0);
    out_.gate_begin.assign(n + 1, 0);
    check_flow_count(op_.transfers.size(), "transfer");
    out_.flows.reserve(op_.transfers.size());
    for (const Transfer& tr : op_.transfers) {
      if (tr.src == tr.dst) continue;   // self-transfer: a local copy, not a flow
      const std::uint32_t s = ranks.find(tr.src), d = ranks.find(tr.dst);
      if (s == kNone || d == kNone)
        throw std::invalid_argument(where(g_, op_.tasks[0]) + ": transfer " + transfer_text(tr) +
                                    " names a rank that is not a member of comm op " + std::to_string(index_));
      if (!(tr.bytes >= 0))
        throw std::invalid_argument(where(g_, op_.tasks[s]) + ": transfer " + transfer_text(tr) + " bytes must be >= 0");
      const double eff = c_.p2p_efficiency && tr.bytes > 0 ? c_.p2p_efficiency(op_, tr.src, tr.dst, tr.bytes) : 0.0;
      add_flow(s, d, tr.bytes, s == d ? 1 : 2, p2p_speedup(s, d), eff);
      ++out_.member_flows[s];
      ++out_.gate_begin[s + 1];
      if (d != s) {
        ++out_.member_flows[d];
        ++out_.gate_begin[d + 1];
      }
    }
    for (std::uint32_t m = 0; m < n; ++m) out_.gate_begin[m + 1] += out_.gate_begin[m];
    out_.member_gates.resize(out_.gate_begin[n]);
    // gate_begin[m] serves as member m's fill cursor (it ends at member m + 1's start), then the
    // starts are shifted back into place.
    auto& cursor = out_.gate_begin;
    for (std::uint32_t f = 0; f < out_.flows.size(); ++f) {
      const OpFlow& fl = out_.flows[f];
      out_.member_gates[cursor[fl.src_member]++] = f;
      if (fl.dst_member != fl.src_member) out_.member_gates[cursor[fl.dst_member]++] = f;
    }
    for (std::uint32_t m = n; m > 0; --m) cursor[m] = cursor[m - 1];
    cursor[0] = 0;
    out_.members_by_task.reserve(n);
    for (std::uint32_t m = 0; m < n; ++m) out_.members_by_task.emplace_back(op_.tasks[m], m);
    std::sort(out_.members_by_task.begin(), out_.members_by_task.end());
  }

  const TaskGraph& g_;
  std::uint32_t index_;
  const CommOp& op_;
  const PlanCosts& c_;
  OpFlows& out_;
};

}  // namespace

std::uint32_t OpFlows::member_of(TaskId t) const {
  auto it = std::lower_bound(members_by_task.begin(), members_by_task.end(), std::make_pair(t, std::uint32_t{0}));
  if (it == members_by_task.end() || it->first != t)
    throw std::invalid_argument("task " + std::to_string(t) + " is not a member of its " + to_string(kind) + " comm op");
  return it->second;
}

std::uint32_t OpFlows::ring_next(std::uint32_t f, std::uint32_t out[2]) const {
  const std::uint32_t n = ring_members;
  if (n == 0 || f + n >= flows.size()) return 0;
  const std::uint32_t k = f / n, i = f % n;
  out[0] = (k + 1) * n + i;               // this member's next send
  out[1] = (k + 1) * n + (i + 1) % n;     // the receiver forwards the chunk
  return 2;
}

void check_comm_ops(const TaskGraph& g, int world_size) {
  const auto& ops = g.comms();
  std::vector<std::uint32_t> listed(ops.size(), 0);
  for (TaskId t = 0; t < g.size(); ++t) {
    const Task& task = g.task(t);
    if (!is_communication(task.kind)) continue;
    if (task.comm == kNone || task.comm >= ops.size())
      throw std::invalid_argument(where(g, t) + ": communication task without a valid CommOp (comm " +
                                  (task.comm == kNone ? std::string("none") : std::to_string(task.comm)) + " of " +
                                  std::to_string(ops.size()) + " ops)");
    ++listed[task.comm];
  }
  std::vector<TaskId> members;
  for (std::uint32_t i = 0; i < ops.size(); ++i) {
    const CommOp& op = ops[i];
    check_members(g, i, op);
    members.assign(op.tasks.begin(), op.tasks.end());
    std::sort(members.begin(), members.end());
    const bool duplicate = std::adjacent_find(members.begin(), members.end()) != members.end();
    if (duplicate || listed[i] != op.tasks.size())
      throw std::invalid_argument(op_name(i, op) + ": " + std::to_string(listed[i]) + " tasks name this op but it lists " +
                                  std::to_string(op.tasks.size()) + (duplicate ? " with duplicates" : "") +
                                  " (every member task must be listed once)");
    for (std::int32_t r : op.ranks)
      if (r < 0 || r >= world_size)
        throw std::invalid_argument(op_name(i, op) + ": member rank " + std::to_string(r) + " outside the cluster of " +
                                    std::to_string(world_size) + " GPUs (valid ranks 0.." + std::to_string(world_size - 1) + ")");
    if (op.kind == TaskKind::SendRecv) {
      if (op.transfers.empty()) continue;
      const RankIndex ranks(op);
      for (const Transfer& tr : op.transfers) {
        if (tr.src == tr.dst) continue;
        if (ranks.find(tr.src) == kNone || ranks.find(tr.dst) == kNone)
          throw std::invalid_argument(where(g, op.tasks.empty() ? 0 : op.tasks[0]) + ": transfer " + transfer_text(tr) +
                                      " names a rank that is not a member of comm op " + std::to_string(i));
        if (!(tr.bytes >= 0))
          throw std::invalid_argument(op_name(i, op) + ": transfer " + transfer_text(tr) + " bytes must be >= 0, got " +
                                      std::to_string(tr.bytes));
      }
    } else if (!(op.bytes_per_rank >= 0)) {
      throw std::invalid_argument(op_name(i, op) + ": bytes_per_rank must be >= 0, got " + std::to_string(op.bytes_per_rank));
    }
  }
}

OpFlows lower_comm_op(const TaskGraph& g, std::uint32_t op, const PlanCosts& costs) {
  OpFlows out;
  lower_comm_op(g, op, costs, out);
  return out;
}

void lower_comm_op(const TaskGraph& g, std::uint32_t op, const PlanCosts& costs, OpFlows& out) {
  if (!costs.link_efficiency) throw std::invalid_argument("PlanCosts: link_efficiency is required");
  if (costs.gpus_per_node < 1) throw std::invalid_argument("PlanCosts: gpus_per_node must be >= 1");
  if (op >= g.comms().size()) throw std::invalid_argument("comm op " + std::to_string(op) + " does not exist");
  out.kind = TaskKind::SendRecv;
  out.flows.clear();
  out.initial = 0;
  out.ring_members = 0;
  out.tail_s = 0;
  out.gate_begin.clear();
  out.member_gates.clear();
  out.member_flows.clear();
  out.members_by_task.clear();
  Lowering(g, op, costs, out).run();
}

double compute_seconds(const TaskGraph& g, TaskId t, const PlanCosts& costs) {
  const double s = costs.compute_s(g.task(t));
  if (!(s >= 0) || std::isinf(s))
    throw std::invalid_argument(where(g, t) + ": compute time must be a finite number >= 0 seconds, got " + std::to_string(s));
  return s;
}

}  // namespace hcpsim::sim
