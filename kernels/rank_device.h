#pragma once
// The device side of the multi-process runner, one object per process: a GPU (cuda_device.h:
// CUDA streams and events, the real kernels on synthetic data) or the CPU (cpu_device.h: the
// reference executor's kernels on real data, each stream a queue). The per-rank schedule
// (rank_schedule.h) issues this rank's tasks in the graph's global order through this interface
// without ever waiting: like a CUDA stream, a device queue runs a task once the task before it on
// the same stream and the tasks it waits for have ended.
#include <utility>

#include "engine/graph/task_graph.h"
#include "kernels/rank_comm.h"

namespace hcpsim::kernels {

class RankDevice {
 public:
  virtual ~RankDevice() = default;
  // Name recorded as the trace's backend ("cuda", "cpu").
  virtual const char* name() const = 0;
  // Starts a pass over the graph: fresh inputs, the pass's time origin (after a barrier).
  virtual void begin_pass() = 0;
  // Makes task `id`'s stream wait for the end of `dep`, a task of this rank on another stream.
  virtual void wait_for(TaskId id, TaskId dep) = 0;
  // Enqueues a compute/copy task on its stream.
  virtual void compute(TaskId id) = 0;
  // Enqueues this rank's part of a communication task, which runs through `comm`; `what` names the
  // task in errors. Calls on one communicator start in the order they were enqueued.
  virtual void communicate(TaskId id, RankComm& comm, const std::string& what) = 0;
  // True once task `id` has ended (may run queued work and make progress on communication).
  virtual bool finished(TaskId id) = 0;
  // Start and end of an ended task, in seconds since the pass's origin.
  virtual std::pair<double, double> times_s(TaskId id) = 0;
};

}  // namespace hcpsim::kernels
