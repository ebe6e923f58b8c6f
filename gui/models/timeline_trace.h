#pragma once
// Timeline data: an adapter from the engine's Trace (read with the engine's one trace reader, or from
// an in-process run) to rank x stream lanes for drawing. The critical path and the matching of a
// prediction with a measurement are the engine's (engine/report/report.h critical_path,
// engine/compare/trace_compare.h), mapped onto the timeline's events.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/graph/task_graph.h"
#include "engine/measured/measured_trace.h"
#include "engine/trace/trace.h"

namespace hcpsim::gui {

// One engine TraceEvent placed on a lane of the timeline.
struct TimelineEvent : TraceEvent {
  int lane = 0;                     // index into TimelineTrace::lanes
  // A profiled kernel of a kind hcpsim has no task for (memory_bound, optimizer,
  // other_communication, other): that kind; TraceEvent::kind is then not meaningful. Drawn like the
  // others, left out of the critical path and of matching (they use TimelineTrace::trace).
  std::optional<MeasuredKind> measured_only;
};

// What the timeline calls an event's kind ("attention_forward", ..., "memory_bound", "optimizer"):
// its measured kind when it has no task kind, else its task kind. Its colour: colors.h kind_color.
MeasuredKind timeline_kind(const TimelineEvent& e);

struct TimelineLane {
  int rank = 0;
  std::string stream;               // "main", "cp", "nccl:p2p", ... or the thread name
};

struct TimelineTrace {
  std::string source;               // file name, or "<memory>"
  Trace trace;                      // the engine trace the lanes were made from
  std::vector<TimelineLane> lanes;  // sorted by rank, then stream order (main, cp, nccl:*)
  std::vector<TimelineEvent> events;  // sorted by lane, then start
  double begin_s = 0, end_s = 0;    // earliest start, latest end (0, 0 when empty)
  // Events of one lane, [first, last) indices into events.
  std::pair<std::size_t, std::size_t> lane_range(int lane) const;
};

// Reads a trace file with the engine's reader (read_chrome_trace); throws std::runtime_error naming
// the file and the problem.
TimelineTrace load_chrome_trace(const std::string& path);
// A profiler trace (PyTorch profiler JSON or an Nsight Systems export of one rank): its first
// profiled step, each rank from 0 (engine/measured/measured_as_trace.h), every kernel drawn: those
// with a task kind in TimelineTrace::trace too, the others (memory-bound, optimizer, ...) as events
// with measured_only set. load_chrome_trace opens such files with this. Throws std::runtime_error
// naming the file.
TimelineTrace load_profiler_trace(const std::string& path);
// Converts an engine trace (e.g. from an in-process backend run).
TimelineTrace from_engine_trace(const Trace& t);

// Gives both traces the same lane list (union of their rank x stream lanes, sorted) so that an
// overlay draws matching lanes on the same row. Event order stays (lane, start).
void unify_lanes(TimelineTrace& a, TimelineTrace& b);

// Indices of the events on the engine's critical path of the trace (docs/metrics.md "Critical
// path"), in time order.
std::vector<std::size_t> critical_path(const TimelineTrace& t);

// One task present in both traces, as the engine's comparison matches them (by task id).
struct MatchedTask {
  std::int64_t task = -1;
  bool has_kind = false;
  TaskKind kind = TaskKind::Copy;
  double predicted_s = 0, measured_s = 0;   // durations
};
// Tasks matched by compare_traces (mismatched and too-short tasks are left out, as in its statistics).
std::vector<MatchedTask> match_tasks(const TimelineTrace& predicted, const TimelineTrace& measured);

}  // namespace hcpsim::gui
