#pragma once
// Single-GPU emulation of a whole scenario (`hcpsim run FILE --emulate-ranks`): every task of every
// rank is run alone on the current GPU (attention with the real kernels at its shape; copies and
// transfers as device-to-device copies of its bytes) and timed with CUDA events; the measured
// durations are then placed on the graph's dependencies (a task starts when its predecessors have
// ended; the member tasks of one CommOp start together and end with the slowest). Compute task
// durations are measurements; start times and communication durations are not (one GPU has no links).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/graph/task_graph.h"
#include "engine/trace/trace.h"

namespace hcpsim::kernels {

struct EmulateOptions {
  int warmup = 1;
  int iterations = 5;          // median of this many timed runs per distinct task shape
  std::uint64_t seed = 1;
  int gpus_per_node = 8;       // recorded in the trace
};

// Called after each distinct shape is measured: done, total.
using EmulateProgress = std::function<void(std::size_t, std::size_t)>;

// Start/end seconds of every task when task i lasts duration_s[i]: a task starts when its
// predecessors have ended; the member tasks of one CommOp start together (when all are ready) and
// end with the slowest. Throws std::runtime_error naming tasks that never become ready.
struct Placement {
  std::vector<double> start_s, end_s;
};
Placement place_on_graph(const TaskGraph& g, const std::vector<double>& duration_s);

// Throws std::invalid_argument for tasks the kernels cannot run (naming the task) and
// std::runtime_error for CUDA errors.
Trace run_emulated(const TaskGraph& g, const EmulateOptions& options, const EmulateProgress& progress = {});

}  // namespace hcpsim::kernels
