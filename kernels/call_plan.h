#pragma once
// The call plan of a multi-process run: for every rank, the ordered list of communicator calls it
// will make (its communication tasks in the issue order of rank_schedule.h). A run can only
// complete when the plan is consistent:
//  - point to point: between two ranks, the i-th send of the sender is the i-th receive of the
//    receiver (same CommOp), and every send has its receive;
//  - collectives: every member of a communicator (group kind + group index) calls the same
//    collectives in the same order, and each CommOp's members are its layout group in group order
//    (a member's index in the call is its rank in the communicator).
// NCCL hangs and MPI deadlocks on an inconsistent plan; checking it first turns that into a message.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"

namespace hcpsim::kernels {

struct PlannedCall {
  TaskId task = 0;
  std::uint32_t op = 0;                 // index into TaskGraph::comms()
  TaskKind kind = TaskKind::SendRecv;
  GroupKind group = GroupKind::CP;      // collectives
  int group_index = 0;                  // collectives
  std::vector<int> sends_to;            // SendRecv: world ranks, in transfer order
  std::vector<int> receives_from;
};

struct CallPlan {
  std::vector<std::vector<PlannedCall>> by_rank;   // [rank] in issue order
};

// The plan the runner would follow for graph `g`.
CallPlan build_call_plan(const TaskGraph& g);

// Every inconsistency found (empty when the plan can run), each naming the ranks, the
// communicator and the calls; at most `max_problems`.
std::vector<std::string> check_call_plan(const TaskGraph& g, const RankLayout& layout, const CallPlan& plan,
                                         std::size_t max_problems = 20);

}  // namespace hcpsim::kernels
