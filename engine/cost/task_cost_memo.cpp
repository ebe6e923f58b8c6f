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
  if (comm_load_on_) {
    op_load_.assign(g.comms().size(), std::numeric_limits<double>::quiet_NaN());
    inter_ranks_.resize(g.comms().size());
    inter_ranks_built_.assign(g.comms().size(), 0);
    p2p_comm_.resize(g.comms().size());
    p2p_comm_built_.assign(g.comms().size(), 0);
  }
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
    if (!p2p_comm_built_[t.comm]) {
      p2p_comm_[t.comm] = cost_.p2p_comm(op);
      p2p_comm_built_[t.comm] = 1;
    }
    return cost_.comm_compute_load(g_, t, send_recv_link_class(t), &p2p_comm_[t.comm]);
  }
  // A collective's message and link class are the same for every member (inter-node as soon as its
  // members span two nodes), hence its load.
  double& load = op_load_[t.comm];
  if (std::isnan(load)) load = cost_.comm_compute_load(g_, t);
  return load;
}

// CostModel::link_class_of for a SendRecv task: inter-node when one of the transfers it sends or
// receives crosses nodes.
LinkClass TaskCostMemo::send_recv_link_class(const Task& t) {
  std::vector<std::int32_t>& inter = inter_ranks_[t.comm];
  if (!inter_ranks_built_[t.comm]) {
    const int gpn = std::max(1, cost_.scenario().cluster.gpus_per_node);
    for (const Transfer& x : g_.comms()[t.comm].transfers)
      if (x.src / gpn != x.dst / gpn) {
        inter.push_back(x.src);
        inter.push_back(x.dst);
      }
    std::sort(inter.begin(), inter.end());
    inter.erase(std::unique(inter.begin(), inter.end()), inter.end());
    inter.shrink_to_fit();
    inter_ranks_built_[t.comm] = 1;
  }
  return std::binary_search(inter.begin(), inter.end(), t.rank) ? LinkClass::InterNode : LinkClass::IntraNode;
}

}  // namespace hcpsim
