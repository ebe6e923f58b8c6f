#pragma once
// Trace: one event per task execution, written by every backend; the only input of Report.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "engine/graph/task_graph.h"
#include "engine/trace/event_facts.h"

namespace hcpsim {

// One event: its facts (task, rank, stream, kind, pass, layer, step, start, end, bytes, FLOPs), its
// display name and its peers.
struct TraceEvent : EventFacts {
  std::string name;                 // display name of the task
  std::vector<std::int32_t> peers;  // peer ranks for communication tasks
};

struct Trace {
  std::string scenario;                 // Scenario::display_name()
  std::string configuration;            // Scenario::configuration(): what was resolved
  std::vector<std::string> overrides;   // the overrides applied to the scenario file
  std::string backend;
  int world_size = 0;
  int gpus_per_node = 8;
  std::vector<TraceEvent> events;
};

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void record(const TraceEvent& e) = 0;
  // Called by backends for every finished task. The default builds the full event (display name,
  // peers) and passes it to record(); a sink that needs less (a makespan, a per-rank sum) can
  // override this and skip that work, which dominates the analytic backend on million-task graphs.
  virtual void record_task(const TaskGraph& g, const Task& t, double start_s, double end_s);
};

// Collects events in memory.
class TraceCollector : public TraceSink {
 public:
  void record(const TraceEvent& e) override { trace.events.push_back(e); }
  Trace trace;
};

// Appends the peers of task `t` to `peers` (nothing for compute tasks): a SendRecv lists the ranks it
// sends to, a collective the other members in group order starting after this rank.
void append_peers(const TaskGraph& g, const Task& t, std::vector<std::int32_t>& peers);

// Fills the static fields of an event (ids, kind, stream, bytes, flops, name, peers) from a task.
TraceEvent make_event(const TaskGraph& g, const Task& t, double start_s, double end_s);

// Chrome-trace / Perfetto JSON: one process per node, one thread per rank x stream, "ph":"X"
// events in microseconds, args {task, bytes, flops, step, peers, layer, pass, kind}.
void write_chrome_trace(const Trace& t, std::ostream& os);
// Reads what write_chrome_trace wrote (and real-run traces in the same format).
// Throws std::runtime_error naming the file and the problem.
Trace read_chrome_trace(const std::string& path);

}  // namespace hcpsim
