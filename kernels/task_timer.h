#pragma once
// Executes single tasks of a TaskGraph on the current GPU with the real kernels on synthetic data
// of the task's shape, and times them with CUDA events. Attention tasks run attention_forward /
// attention_backward at the task's AttentionShape (mask from its section); copies, LSE merges and
// output corrections run as a device copy that moves the task's HBM bytes (half read, half
// written); communication tasks, when timed alone (emulation), run as a device-to-device copy of
// the bytes the rank sends.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>

#include "engine/graph/task_graph.h"
#include "kernels/attention.h"

namespace hcpsim::kernels {

// Kernel mask of a schedule's mask section (diagonal/causal: top-left; bottom_right; else none).
MaskKind mask_of(MaskSection s);

// Kernel dimensions of an attention task; throws std::invalid_argument naming the task when the
// shape cannot run on these kernels (head_dim not 64/128, d_qk != d_v, sizes beyond int).
AttentionDims attention_dims_of(const TaskGraph& g, const Task& t);

// Adds one attention task of shape `a` and pass `pass` to `g` (FLOPs from attention_flops), as
// calibrate and the interference probe time them; returns its id.
TaskId add_attention_task(TaskGraph& g, const AttentionShape& a, Pass pass);

// Device buffers large enough for every task of a graph, filled with random bf16 data.
class TaskTimer {
 public:
  // Allocates on the current device; throws std::runtime_error on CUDA errors (out of memory
  // names the bytes needed).
  TaskTimer(const TaskGraph& g, std::uint64_t seed);
  ~TaskTimer();
  TaskTimer(const TaskTimer&) = delete;
  TaskTimer& operator=(const TaskTimer&) = delete;

  // Enqueues the work of task `t` on `stream` (no timing). Backward attention first runs an
  // untimed forward of the same shape when `prepare_backward` is true (O and LSE inputs).
  void enqueue(const Task& t, cudaStream_t stream);
  // Enqueues whatever a task needs before it can be timed (the forward feeding a backward).
  void prepare(const Task& t, cudaStream_t stream);
  // Runs `t` `warmup` times, then `iterations` times between events; returns the median seconds.
  double time_task(const Task& t, int warmup, int iterations, cudaStream_t stream);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hcpsim::kernels
