#include "sim/flow_plan.h"

#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

namespace hcpsim::sim {

namespace {

using Pairs = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

Csr to_csr(std::size_t keys, const Pairs& pairs) {
  Csr c;
  c.begin.assign(keys + 1, 0);
  for (const auto& [k, v] : pairs) ++c.begin[k + 1];
  for (std::size_t k = 0; k < keys; ++k) c.begin[k + 1] += c.begin[k];
  c.items.resize(pairs.size());
  std::vector<std::uint32_t> fill(c.begin.begin(), c.begin.end() - 1);
  for (const auto& [k, v] : pairs) c.items[fill[k]++] = v;
  return c;
}

std::string where(const TaskGraph& g, TaskId t) {
  return "task " + std::to_string(t) + " (rank " + std::to_string(g.task(t).rank) + " " +
         g.display_name(g.task(t)) + ")";
}

class Lowering {
 public:
  Lowering(const TaskGraph& g, const PlanCosts& c, FlowPlan& p) : g_(g), c_(c), p_(p) {}

  void run() {
    const std::size_t n = g_.size();
    p_.compute_s.assign(n, 0.0);
    p_.flow_count.assign(n, 0);
    for (TaskId t = 0; t < n; ++t) {
      const Task& task = g_.task(t);
      if (is_communication(task.kind)) {
        if (task.comm == kNone || task.comm >= g_.comms().size())
          throw std::invalid_argument(where(g_, t) + ": communication task without a valid CommOp");
        continue;
      }
      const double s = c_.compute_s(task);
      if (!(s >= 0)) throw std::invalid_argument(where(g_, t) + ": compute time must be >= 0, got " + std::to_string(s));
      p_.compute_s[t] = s;
    }
    p_.op_members.assign(g_.comms().size(), 0);
    p_.op_flows.assign(g_.comms().size(), 0);
    for (std::uint32_t op = 0; op < g_.comms().size(); ++op) lower(op);
    p_.task_gates = to_csr(n, task_gates_);
    p_.op_initial = to_csr(g_.comms().size(), op_initial_);
    p_.flow_next = to_csr(p_.flows.size(), flow_next_);
  }

 private:
  void check_members(std::uint32_t op_index, const CommOp& op) {
    if (op.ranks.size() != op.tasks.size())
      throw std::invalid_argument("comm op " + std::to_string(op_index) + " (" + to_string(op.kind) +
                                  "): " + std::to_string(op.ranks.size()) + " ranks but " +
                                  std::to_string(op.tasks.size()) + " member tasks");
    for (std::size_t i = 0; i < op.tasks.size(); ++i) {
      const TaskId t = op.tasks[i];
      if (t >= g_.size()) throw std::invalid_argument("comm op " + std::to_string(op_index) + ": member task id out of range");
      if (g_.task(t).comm != op_index || g_.task(t).rank != op.ranks[i])
        throw std::invalid_argument(where(g_, t) + ": listed as member " + std::to_string(i) + " of comm op " +
                                    std::to_string(op_index) + " but its comm/rank fields disagree");
    }
  }

  // A SendRecv flow charges st/dt; a collective flow (op != kNone) charges its op.
  std::uint32_t add_flow(std::int32_t src, std::int32_t dst, double bytes, TaskId st, TaskId dt, TaskId owner,
                         std::uint32_t op) {
    if (!(bytes >= 0)) throw std::invalid_argument(where(g_, owner) + ": transfer bytes must be >= 0");
    const bool inter = src / c_.gpus_per_node != dst / c_.gpus_per_node;
    PlannedFlow f;
    f.src = src;
    f.dst = dst;
    f.bytes = bytes;
    if (bytes > 0) {
      const double eff = c_.link_efficiency(bytes, inter);
      if (!(eff > 0 && eff <= 1))
        throw std::invalid_argument(where(g_, owner) + ": link efficiency must be in (0, 1], got " + std::to_string(eff));
      f.wire_bytes = bytes / eff;
    }
    f.op = op;
    if (op == kNone) {
      f.src_task = st;
      f.dst_task = dt;
      ++p_.flow_count[st];
      if (dt != st) ++p_.flow_count[dt];
    } else {
      ++p_.op_flows[op];
    }
    p_.flows.push_back(f);
    return static_cast<std::uint32_t>(p_.flows.size() - 1);
  }

  void lower(std::uint32_t op_index) {
    const CommOp& op = g_.comms()[op_index];
    check_members(op_index, op);
    if (op.tasks.empty()) return;
    if (op.kind == TaskKind::SendRecv) return lower_sendrecv(op_index, op);
    p_.op_members[op_index] = static_cast<std::uint32_t>(op.tasks.size());
    const auto n = static_cast<std::uint32_t>(op.ranks.size());
    if (!(op.bytes_per_rank >= 0))
      throw std::invalid_argument(where(g_, op.tasks[0]) + ": bytes_per_rank must be >= 0");
    if (n < 2 || op.bytes_per_rank == 0) return;
    if (op.kind == TaskKind::AllToAll) {
      const double piece = op.bytes_per_rank / n;
      for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t j = 0; j < n; ++j) {
          if (i == j || op.ranks[i] == op.ranks[j]) continue;
          const auto f = add_flow(op.ranks[i], op.ranks[j], piece, op.tasks[i], op.tasks[j], op.tasks[i], op_index);
          p_.flows[f].gate = 1;
          op_initial_.emplace_back(op_index, f);
        }
      return;
    }
    std::uint32_t steps = n - 1;
    double step_bytes = op.bytes_per_rank;
    if (op.kind == TaskKind::AllReduce) {
      steps = 2 * (n - 1);
      step_bytes = op.bytes_per_rank / n;
    } else if (op.kind != TaskKind::AllGather && op.kind != TaskKind::ReduceScatter) {
      throw std::invalid_argument(where(g_, op.tasks[0]) + ": comm op kind " + to_string(op.kind) + " is not a communication");
    }
    const auto base = static_cast<std::uint32_t>(p_.flows.size());
    for (std::uint32_t k = 0; k < steps; ++k)
      for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t nx = (i + 1) % n;
        const auto f = add_flow(op.ranks[i], op.ranks[nx], step_bytes, op.tasks[i], op.tasks[nx], op.tasks[i], op_index);
        if (k == 0) {
          p_.flows[f].gate = 1;
          op_initial_.emplace_back(op_index, f);
        } else {
          p_.flows[f].gate = 2;
          flow_next_.emplace_back(base + (k - 1) * n + i, f);                 // own previous send
          flow_next_.emplace_back(base + (k - 1) * n + (i + n - 1) % n, f);   // chunk received
        }
      }
  }

  void lower_sendrecv(std::uint32_t op_index, const CommOp& op) {
    std::unordered_map<std::int32_t, TaskId> task_of_rank;
    for (std::size_t i = 0; i < op.ranks.size(); ++i) task_of_rank.emplace(op.ranks[i], op.tasks[i]);
    for (const Transfer& tr : op.transfers) {
      if (tr.src == tr.dst) continue;   // self-transfer: a local copy, not a flow
      auto s = task_of_rank.find(tr.src);
      auto d = task_of_rank.find(tr.dst);
      if (s == task_of_rank.end() || d == task_of_rank.end())
        throw std::invalid_argument(where(g_, op.tasks[0]) + ": transfer " + std::to_string(tr.src) + "->" +
                                    std::to_string(tr.dst) + " names a rank that is not a member of comm op " +
                                    std::to_string(op_index));
      const auto f = add_flow(tr.src, tr.dst, tr.bytes, s->second, d->second, s->second, kNone);
      p_.flows[f].gate = s->second == d->second ? 1 : 2;
      task_gates_.emplace_back(s->second, f);
      if (d->second != s->second) task_gates_.emplace_back(d->second, f);
    }
  }

  const TaskGraph& g_;
  const PlanCosts& c_;
  FlowPlan& p_;
  Pairs task_gates_, op_initial_, flow_next_;
};

}  // namespace

FlowPlan make_flow_plan(const TaskGraph& g, const PlanCosts& costs) {
  if (!costs.compute_s || !costs.link_efficiency) throw std::invalid_argument("PlanCosts: both cost functions are required");
  if (costs.gpus_per_node < 1) throw std::invalid_argument("PlanCosts: gpus_per_node must be >= 1");
  FlowPlan p;
  Lowering(g, costs, p).run();
  return p;
}

}  // namespace hcpsim::sim
