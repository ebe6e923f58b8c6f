#pragma once
// Timeline data: events of one Chrome-trace / Perfetto JSON file (what `hcpsim simulate --trace` and
// `hcpsim run` write) grouped into rank x stream lanes. Parsed here with nlohmann-json, leniently, so
// that predicted and measured traces of slightly different producers both load.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/graph/task_graph.h"
#include "engine/trace/trace.h"

namespace hcpsim::gui {

struct TimelineEvent {
  std::int64_t task = -1;           // task id from args.task, -1 when absent
  int rank = 0;
  int lane = 0;                     // index into TimelineTrace::lanes
  bool has_kind = false;
  TaskKind kind = TaskKind::Copy;
  double start_s = 0, end_s = 0;
  double bytes = 0, flops = 0;
  int step = -1;
  std::string name;
  std::vector<int> peers;
};

struct TimelineLane {
  int rank = 0;
  std::string stream;               // "main", "cp", "nccl:p2p", ... or the thread name
};

struct TimelineTrace {
  std::string source;               // file name, or "<memory>"
  std::vector<TimelineLane> lanes;  // sorted by rank, then stream order (main, cp, nccl:*)
  std::vector<TimelineEvent> events;  // sorted by lane, then start
  double begin_s = 0, end_s = 0;    // earliest start, latest end (0, 0 when empty)
  // Events of one lane, [first, last) indices into events.
  std::pair<std::size_t, std::size_t> lane_range(int lane) const;
};

// Parses Chrome-trace JSON text. Rank and stream come from args.rank/args.stream, else from the
// thread_name metadata ("rank 3 nccl:p2p"), else pid/tid. Throws std::runtime_error naming `source`.
TimelineTrace parse_chrome_trace(const std::string& json_text, const std::string& source = "<memory>");
// Reads and parses a file; throws std::runtime_error naming the file.
TimelineTrace load_chrome_trace(const std::string& path);
// Converts an engine trace (e.g. from an in-process backend run).
TimelineTrace from_engine_trace(const Trace& t);

// Gives both traces the same lane list (union of their rank x stream lanes, sorted) so that an
// overlay draws matching lanes on the same row. Event order stays (lane, start).
void unify_lanes(TimelineTrace& a, TimelineTrace& b);

// Indices of the events on an approximate critical path: start from the event that ends last and
// repeatedly step to the latest-ending event that finished before it started, on the same rank or
// on one of its peer ranks. Returned in time order. (Traces carry no dependency edges; this is the
// usual trace-only reconstruction.)
std::vector<std::size_t> critical_path(const TimelineTrace& t);

// One task present in both traces (matched by task id, else by rank + name + occurrence).
struct MatchedTask {
  std::int64_t task = -1;
  bool has_kind = false;
  TaskKind kind = TaskKind::Copy;
  double predicted_s = 0, measured_s = 0;   // durations
};
// Tasks of `predicted` matched in `measured`; unmatched events on either side are left out.
std::vector<MatchedTask> match_tasks(const TimelineTrace& predicted, const TimelineTrace& measured);

}  // namespace hcpsim::gui
