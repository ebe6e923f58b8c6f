#include "engine/cost/task_cost_memo.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hcpsim {

TaskCostMemo::TaskCostMemo(const CostModel& cost, const TaskGraph& g)
    : cost_(cost),
      g_(g),
      comm_load_on_(cost.terms().comm_compute_interference),
      attention_eff_(2 * g.attention_shapes().size(), std::numeric_limits<double>::quiet_NaN()) {
  p2p_comm_.resize(g.comms().size());
  p2p_comm_built_.assign(g.comms().size(), 0);
  if (comm_load_on_) {
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    op_load_.assign(g.comms().size(), nan);
    task_class_.assign(g.size(), 0);
    op_classes_built_.assign(g.comms().size(), 0);
    rank_stamp_.assign(static_cast<std::size_t>(std::max(0, cost.scenario().world_size())), 0);
    p2p_load_.assign(g.comms().size(), P2pLoad{{nan, nan}, {nan, nan}});
  }
}

const NcclP2pComm& TaskCostMemo::p2p_comm(std::uint32_t op) {
  if (!p2p_comm_built_[op]) {
    p2p_comm_[op] = cost_.p2p_comm(g_.comms()[op]);
    p2p_comm_built_[op] = 1;
  }
  return p2p_comm_[op];
}

double TaskCostMemo::compute_seconds(const Task& t) {
  const bool attention = t.kind == TaskKind::AttentionForward || t.kind == TaskKind::AttentionBackward;
  if (!attention || t.attention == kNone || t.attention >= g_.attention_shapes().size())
    return cost_.compute_seconds(g_, t);
  const bool backward = t.kind == TaskKind::AttentionBackward;
  double& eff = attention_eff_[2 * static_cast<std::size_t>(t.attention) + (backward ? 1 : 0)];
  if (std::isnan(eff))
    eff = cost_.attention_efficiency(backward ? Pass::Backward : Pass::Forward, g_.attention_shapes()[t.attention]);
  return cost_.compute_seconds(g_, t, eff);
}

double TaskCostMemo::comm_compute_load(const Task& t) {
  if (!comm_load_on_ || !is_communication(t.kind) || t.comm == kNone || t.comm >= g_.comms().size()) return 0.0;
  const CommOp& op = g_.comms()[t.comm];
  if (op.kind == TaskKind::SendRecv) {
    const LinkClass c = send_recv_link_class(t);
    P2pLoad& memo = p2p_load_[t.comm];
    const int k = c == LinkClass::InterNode ? 1 : 0;
    // Bit for bit the same bytes: the same load (NaN, never equal to itself, is asked anew).
    if (memo.bytes[k] == t.bytes && std::signbit(memo.bytes[k]) == std::signbit(t.bytes)) return memo.load[k];
    const double load = cost_.comm_compute_load(g_, t, c, &p2p_comm(t.comm));
    memo.bytes[k] = t.bytes;
    memo.load[k] = load;
    return load;
  }
  // A collective's message and link class are the same for every member (inter-node as soon as its
  // members span two nodes), hence its load.
  double& load = op_load_[t.comm];
  if (std::isnan(load)) load = cost_.comm_compute_load(g_, t);
  return load;
}

// CostModel::link_class_of for a SendRecv task: inter-node when one of the transfers of its op that
// its rank sends or receives crosses nodes. On the first question about an op, the ranks of its
// node-crossing transfers are stamped (no sort, no search) and every member task of the op gets its
// class; a task of the op that is not listed among its members is answered by the CostModel itself.
LinkClass TaskCostMemo::send_recv_link_class(const Task& t) {
  const TaskId id = g_.id_of(t);
  if (task_class_[id] == 0 && !op_classes_built_[t.comm]) {
    op_classes_built_[t.comm] = 1;
    const CommOp& op = g_.comms()[t.comm];
    const int gpn = std::max(1, cost_.scenario().cluster.gpus_per_node);
    const std::uint32_t stamp = t.comm + 1;
    const auto world = static_cast<std::int64_t>(rank_stamp_.size());
    bool ranks_ok = true;   // else (a rank outside the cluster) every member asks the CostModel
    for (const Transfer& x : op.transfers) {
      if (x.src < 0 || x.dst < 0 || x.src >= world || x.dst >= world) {
        ranks_ok = false;
        break;
      }
      if (x.src / gpn == x.dst / gpn) continue;
      rank_stamp_[static_cast<std::size_t>(x.src)] = stamp;
      rank_stamp_[static_cast<std::size_t>(x.dst)] = stamp;
    }
    if (ranks_ok)
      for (const TaskId m : op.tasks) {
        if (m >= g_.size()) continue;
        const Task& mt = g_.task(m);
        if (mt.comm != t.comm || mt.rank < 0 || mt.rank >= world) continue;
        task_class_[m] = rank_stamp_[static_cast<std::size_t>(mt.rank)] == stamp ? 2 : 1;
      }
  }
  if (task_class_[id] == 0) task_class_[id] = cost_.link_class_of(g_, t) == LinkClass::InterNode ? 2 : 1;
  return task_class_[id] == 2 ? LinkClass::InterNode : LinkClass::IntraNode;
}

}  // namespace hcpsim
