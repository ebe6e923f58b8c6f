#pragma once
// TraceDuringRun: the trace file of `hcpsim simulate --trace`, written on a second thread while the
// backend runs. Once the run has started (its first task time is recorded: a backend that forks has
// forked by then), the thread writes the file's metadata (from the graph alone) and then the events
// in task order, each as soon as the times of every task up to it are final (TaskProgress); builders
// number tasks roughly in the order they run, so most of the file is written during the run and the
// rest while the main thread computes the report. The thread's view computes peers when asked for
// (GraphEventView::PeerStorage::OnDemand): it adds nothing in proportion to the graph to a run that
// holds its own state.
#include <cstddef>
#include <exception>
#include <optional>
#include <thread>

#include "engine/fold/fold_plan.h"
#include "engine/trace/task_progress.h"
#include "engine/trace/task_times.h"
#include "engine/trace/trace.h"
#include "engine/trace/trace_filter.h"
#include "engine/trace/trace_output.h"

namespace hcpsim {

// What the trace file needs besides the events: where, which events, and the header.
struct TraceFileJob {
  TraceOutput* out = nullptr;       // written here, not closed
  Trace header;                     // header fields only (no events)
  TraceFilter filter;
  const FoldPlan* fold = nullptr;   // when folded, the file repeats the unit for the replicas kept
};

class TraceDuringRun {
 public:
  // Connects `sink` (sink.publish_to) and starts the thread; `g`, `sink`, job.out and job.fold
  // must outlive this object.
  TraceDuringRun(const TaskGraph& g, TaskTimesSink& sink, TraceFileJob job);
  // Abandons a run that did not finish (the thread stops at the first time it would wait for) and
  // joins the thread.
  ~TraceDuringRun();
  TraceDuringRun(const TraceDuringRun&) = delete;
  TraceDuringRun& operator=(const TraceDuringRun&) = delete;

  // Call when the backend has recorded every task: publishes the whole run (also a run of no tasks).
  void run_finished(std::size_t tasks) { progress_.publish(tasks); }
  // Waits until every event is written (the output is not closed); returns how many were written.
  // Rethrows an error of the thread (TraceWriteError, InternalError).
  std::size_t finish();

 private:
  void work();
  const TaskGraph& g_;
  const TaskTimesSink& sink_;
  TraceFileJob job_;
  TaskProgress progress_;
  std::size_t written_ = 0;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace hcpsim
