#pragma once
// The facts of one event of a run: everything but its display name and its peers (those are asked
// for separately, because building them is what costs on million-task runs). A TraceEvent
// (trace.h) is these facts with its name and peers; an EventView (event_view.h) gives them by index.
#include <cstdint>

#include "engine/graph/task_graph.h"

namespace hcpsim {

struct EventFacts {
  TaskId task = 0;
  std::int32_t rank = 0;
  Stream stream = Stream::Main;
  TaskKind kind = TaskKind::Copy;
  Pass pass = Pass::Forward;
  std::int16_t layer = 0;
  std::int32_t step = -1;
  double start_s = 0;
  double end_s = 0;
  double bytes = 0;
  double flops = 0;
};

// The facts of task `id` of a graph, run from start_s to end_s.
inline EventFacts facts_of_task(TaskId id, const Task& t, double start_s, double end_s) {
  return {id, t.rank, t.stream, t.kind, t.pass, t.layer, t.step, start_s, end_s, t.bytes, t.flops};
}

}  // namespace hcpsim
