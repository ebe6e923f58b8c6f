#pragma once
// TaskTimes: when each task of one run started and ended, indexed by task id. 16 bytes a task: with
// the graph itself, all that the report and a streamed trace file need (engine/trace/graph_event_view.h),
// so a run never holds one TraceEvent (name string, peer vector) per task.
#include <cstddef>
#include <vector>

#include "engine/trace/task_progress.h"
#include "engine/trace/trace.h"

namespace hcpsim {

struct TaskTimes {
  double start_s = 0;
  double end_s = 0;
};

// A TraceSink that keeps only the times, by task id. Backends that call record() with full events
// (the reference backend) are accepted too; the event's task id must lie in the graph.
class TaskTimesSink : public TraceSink {
 public:
  // Nothing is allocated before the first record: a backend that forks (simgrid) does so with the
  // memory of the graph only, and the child does not inherit these pages.
  explicit TaskTimesSink(std::size_t tasks) : tasks_(tasks) {}
  void record(const TraceEvent& e) override { note(e.task, e.start_s, e.end_s); }
  void record_task(const TaskGraph& g, const Task& t, double start_s, double end_s) override {
    note(g.id_of(t), start_s, end_s);
  }
  // Tasks recorded at least once.
  std::size_t recorded() const { return recorded_; }
  // Throws std::runtime_error naming the backend when a task was never recorded.
  void require_complete(const std::string& backend) const;
  const std::vector<TaskTimes>& times() const { return times_; }
  // Publish to `progress` (alive while the sink records) how far the times are final: the run starts
  // at the first record, and the prefix of recorded tasks is published every kPublishEvery_tasks
  // tasks and when it is complete. Once a task lies in the published prefix, a second record of it
  // throws std::runtime_error (a reader may have used its times). Call before the run.
  void publish_to(TaskProgress* progress) { progress_ = progress; }
  static constexpr std::size_t kPublishEvery_tasks = 16384;

 private:
  void note(TaskId id, double start_s, double end_s);
  void advance_prefix();
  std::size_t tasks_ = 0;
  std::vector<TaskTimes> times_;
  std::vector<bool> seen_;
  std::size_t recorded_ = 0;
  TaskProgress* progress_ = nullptr;
  std::size_t prefix_ = 0;      // tasks [0, prefix_) are recorded
  std::size_t published_ = 0;   // the prefix progress_ was last given
};

}  // namespace hcpsim
