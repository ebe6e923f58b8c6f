#pragma once
// The per-rank schedule shared by every multi-process run (GPU + NCCL, CPU + MPI): which tasks this
// rank runs and in which order, which communicators it needs, and the issue loop with its
// deadline. Tasks are issued in the graph's global topological order (the same list on every
// rank, so communicator calls match: see call_plan.h); a task waits for its dependencies on
// other streams of the same rank; the device (rank_device.h) runs it, the communicator
// (rank_comm.h) moves its messages. A task or a peer that does not finish before the deadline,
// or an error on any communicator, ends the pass with an error naming this rank and the task.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"
#include "engine/trace/trace.h"
#include "kernels/rank_comm.h"
#include "kernels/rank_device.h"

namespace hcpsim::kernels {

// The group kinds whose communicators the graph's collectives use (send/recv runs on the world).
std::vector<GroupKind> collective_group_kinds(const TaskGraph& g);

// This rank's tasks in the global topological order.
std::vector<TaskId> rank_issue_order(const TaskGraph& g, int rank);

// "rank 3: task 17 (L0.fwd.s1.attn)".
std::string describe_task(const TaskGraph& g, int rank, TaskId id);

// Test hook: HCPSIM_RUNNER_FAIL="RANK:TASK" (TASK a task id or display name) makes that rank fail
// when it reaches that task, as a crashed kernel would; "RANK:TASK:hang" makes it stop there
// without a word, as a stuck peer would (the other ranks then hit their deadline). Parsed from the
// environment.
struct InjectedFailure {
  int rank = -1;
  std::string task;
  bool hang = false;
};
std::optional<InjectedFailure> injected_failure_from_env();

struct RankRunOptions {
  int warmup = 1;           // untimed passes before the timed one
  double timeout_s = 120;   // per pass
};

// Start and end (seconds since the timed pass's origin) of every task of this rank, indexed by
// TaskId (zero for other ranks' tasks). Throws std::runtime_error naming the rank and the task.
struct RankTimes {
  std::vector<double> start_s, end_s;
};
RankTimes run_rank_schedule(const TaskGraph& g, int rank, RankComm& comm, RankDevice& device,
                            const RankRunOptions& options);

// Collects every rank's measured times on rank 0 as a trace (empty trace on other ranks).
Trace gather_trace(const TaskGraph& g, int rank, RankComm& comm, const RankTimes& times, const char* backend,
                   int gpus_per_node);

}  // namespace hcpsim::kernels
