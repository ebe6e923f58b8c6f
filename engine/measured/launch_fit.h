#pragma once
// Launch overheads of a profiled run, from the times the profiler records (engine/measured/):
//   fixed cost:     the time of a kernel with almost no work, the cost model's kernel_overhead_s (a
//                   kernel's launch ramp and tail, inside its time): the 5th percentile of the
//                   memory-bound kernels' durations, the shortest kernels a GPU runs (fitted from
//                   kMinTinyKernels of them or more);
//   queued gap:     on one CUDA stream, the GPU's idle time between a kernel's end and the start of the
//                   next one when that one was launched before the first ended (the GPU had it queued):
//                   the fixed cost the GPU pays per kernel beyond the kernel's own time;
//   launch latency: host call start -> GPU start of a kernel launched onto an idle stream (the
//                   previous kernel of its stream had ended when the host called).
// The last two are medians over their samples, for compute kernels (every kind but communication)
// and for NCCL kernels apart; kernels without a recorded launch (no runtime events) give no sample.
#include <cstddef>

#include "engine/measured/measured_trace.h"

namespace hcpsim {

struct LaunchStat {
  std::size_t samples = 0;
  double median_s = 0;   // meaningful when samples > 0 (for fixed_cost: the 5th percentile)
};

constexpr std::size_t kMinTinyKernels = 20;

struct LaunchOverheads {
  LaunchStat fixed_cost;                     // samples: memory-bound kernels; 0 below kMinTinyKernels
  LaunchStat compute_gap, nccl_gap;          // queued gaps
  LaunchStat compute_latency, nccl_latency;  // launch latencies onto an idle stream
};

LaunchOverheads fit_launch_overheads(const MeasuredRun& run);

}  // namespace hcpsim
