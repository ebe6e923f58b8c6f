#pragma once
// TaskCostMemo: the CostModel answers a backend asks for once or twice per task, remembered per
// attention shape and per communication op of one graph. On a million-task graph the tasks share a
// few hundred attention shapes, and every member of a collective has the same compute load, so the
// table interpolations and the scans of an op's transfers run once per shape or op instead of once
// per task. Every answer equals the CostModel's own for the same task (same formulas, same order of
// floating-point operations). Not thread-safe; one per run.
#include <cstdint>
#include <vector>

#include "engine/cost/cost_model.h"
#include "engine/cost/nccl_p2p.h"

namespace hcpsim {

class TaskCostMemo {
 public:
  // Both must outlive the memo; the graph must not change while it is used.
  TaskCostMemo(const CostModel& cost, const TaskGraph& g);

  // == cost.compute_seconds(g, t).
  double compute_seconds(const Task& t);
  // == cost.comm_compute_load(g, t).
  double comm_compute_load(const Task& t);
  // == cost.p2p_comm(g.comms()[op]) for SendRecv op `op` (< g.comms().size()), computed once per op.
  const NcclP2pComm& p2p_comm(std::uint32_t op);

 private:
  LinkClass send_recv_link_class(const Task& t);

  const CostModel& cost_;
  const TaskGraph& g_;
  bool comm_load_on_ = false;
  std::vector<double> attention_eff_;   // [2 * shape + (backward ? 1 : 0)], NaN until asked
  std::vector<double> op_load_;         // collectives: load of every member, NaN until asked
  // SendRecv tasks: their link class, per task id (0 until known, 1 intra-node, 2 inter-node),
  // filled for all members of an op at once on the first question about one of them.
  std::vector<std::uint8_t> task_class_;
  std::vector<std::uint8_t> op_classes_built_;   // per SendRecv op
  std::vector<std::uint32_t> rank_stamp_;        // per rank: 1 + the last op that found it inter-node
  // SendRecv ops: their NCCL communicator (CostModel::p2p_comm), built on first use.
  std::vector<NcclP2pComm> p2p_comm_;
  std::vector<std::uint8_t> p2p_comm_built_;
  // SendRecv ops: the load of the last member asked for, per link class (a member's load depends on
  // the op, its link class and its bytes only); bytes NaN until asked.
  struct P2pLoad {
    double bytes[2];
    double load[2];
  };
  std::vector<P2pLoad> p2p_load_;
};

}  // namespace hcpsim
