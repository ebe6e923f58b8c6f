#pragma once
// Steps and passes of measured kernels, from the ranges a profiled run recorded: PyTorch's
// ProfilerStep#N and record_function ranges, NVTX ranges ("step 3", "forward", "backward").
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/measured/measured_trace.h"

namespace hcpsim {

struct ProfiledRange {
  double start_s = 0;
  double end_s = 0;
  std::int64_t step = -1;    // the profiler's step number when this range is a step; -1 otherwise
  MeasuredPass pass = MeasuredPass::Unknown;
  bool on_gpu = false;       // on the GPU's timeline (gpu_user_annotation), else the host's
};

// Recognises a range by name: "ProfilerStep#12", "step 3", "iteration_7" are steps; a name holding
// "forward"/"fwd" or "backward"/"bwd" (not both) is a pass. False for any other range.
bool parse_profiled_range(std::string_view name, ProfiledRange& out);

// Host launch time of a kernel, by the profiler's correlation id.
using LaunchTimes = std::unordered_map<std::int64_t, double>;

// Sorts kernels by start, keeping `correlation` (one per kernel) alongside.
void sort_kernels_by_start(std::vector<MeasuredKernel>& kernels, std::vector<std::int64_t>& correlation);

// Sets MeasuredKernel::step, ::pass and ::launch_s of every kernel of `r` (kernels sorted by start;
// `correlation[i]` belongs to kernel i, -1 when unknown). A kernel is in the step (pass) whose GPU
// range holds its start, else whose host range holds its launch; attention kernels keep the pass
// their kind says. Steps are numbered 0.. in the profiler's order; r.steps is their count.
void assign_profiled_ranges(MeasuredRank& r, std::vector<ProfiledRange> ranges,
                            const std::vector<std::int64_t>& correlation, const LaunchTimes& launches);

}  // namespace hcpsim
