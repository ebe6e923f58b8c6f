#pragma once
// Writes PyTorch profiler (Kineto) traces in the shape a Megatron-Core + Transformer Engine run
// produces, from an hcpsim trace: one file per rank (rank-R.pt.trace.json), with distributedInfo,
// ProfilerStep#N host ranges, cudaLaunchKernel launches linked by correlation ids, the kernel names
// of cuDNN fused attention, nvjet GEMMs and NCCL, and forward / backward GPU ranges. Kernel times
// are the predicted ones times a factor per task kind, so a test knows what `compare` and
// `calibrate --from-trace` must find. For tests, the worked example and the memory benchmark.
#include <map>
#include <string>

#include "engine/trace/trace.h"

namespace hcpsim::testing {

struct KinetoSynthOptions {
  int steps = 2;                           // ProfilerStep#1.. ranges, the layer repeated in each
  int layers = 1;                          // copies of the predicted trace per step, back to back
  std::map<TaskKind, double> time_scale;   // measured = predicted x this (default 1)
  int host_ops_per_kernel = 0;             // extra aten cpu_op events per kernel (file size, as real traces)
  bool omit_distributed_info = false;      // leave the rank to the file name
};

// Writes one file per rank of `predicted` into `folder` (which must exist); returns the bytes written.
// Throws std::runtime_error naming a file it cannot write.
double write_kineto_traces(const Trace& predicted, const std::string& folder, const KinetoSynthOptions& options);

}  // namespace hcpsim::testing
