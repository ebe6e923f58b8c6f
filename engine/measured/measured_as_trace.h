#pragma once
// One profiled step of a measured run as an hcpsim Trace, to draw beside (or over) a prediction on
// the GUI's timeline. Each rank's step starts at 0 (ranks' clocks are not aligned); kernels keep their
// name, rank, mapped stream (assign_streams) and kind. Kernels whose measured kind has no hcpsim task
// kind (memory_bound, optimizer, other, other_communication) are left out of the Trace and counted,
// and handed back beside it when asked (a timeline draws them too); a kernel of unknown pass is drawn
// as forward. Task ids count from 2^31, so that they match no predicted task.
#include <cstddef>
#include <vector>

#include "engine/measured/measured_trace.h"
#include "engine/trace/trace.h"

namespace hcpsim {

// A kernel of the step that has no hcpsim task kind: placed as the Trace's events are (event.kind is
// not meaningful), with its measured kind.
struct MeasuredOnlyEvent {
  TraceEvent event;
  MeasuredKind kind = MeasuredKind::Other;
};

// `step` counts from 0 among the profiled steps (the whole trace when the run has none). Throws
// std::invalid_argument when `step` is not a profiled step of any rank. `left_out`: how many kernels
// had no task kind; `others`: those kernels.
Trace measured_step_as_trace(const MeasuredRun& run, int step, std::size_t* left_out = nullptr,
                             std::vector<MeasuredOnlyEvent>* others = nullptr);

// True when the file looks like a profiler trace (an Nsight Systems SQLite export, or JSON whose
// first 4 KB hold schemaVersion, distributedInfo or deviceProperties): what the GUI opens with the
// measured-trace readers rather than the hcpsim trace reader.
bool is_profiler_trace_file(const std::string& path);

}  // namespace hcpsim
