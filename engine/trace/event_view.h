#pragma once
// EventView: read-only access to the events of one run, whatever holds them. The report and the
// critical path are computed over this view only, so one implementation serves a Trace read from a
// file (TraceEventView) and a run that kept nothing but the graph and the task times
// (GraphEventView), and both give the same numbers for the same events.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "engine/graph/task_graph.h"
#include "engine/trace/event_facts.h"
#include "engine/trace/task_times.h"

namespace hcpsim {

// Its const methods may be called from two threads at once (compute_report computes the critical
// path on a second thread): implementations keep no mutable state.
class EventView {
 public:
  virtual ~EventView() = default;
  virtual std::size_t size() const = 0;
  // Precondition for all: i < size().
  virtual EventFacts at(std::size_t i) const = 0;
  // at(i) with start_s and end_s 0: the facts that do not depend on the run, which a view over a run
  // still in progress (engine/trace/streamed_event_view.h) gives without waiting for its times.
  virtual EventFacts untimed(std::size_t i) const {
    EventFacts e = at(i);
    e.start_s = e.end_s = 0;
    return e;
  }
  // at(i).rank, which a view may give without building the whole EventFacts (the report groups the
  // events by rank in passes that need nothing else).
  virtual std::int32_t rank(std::size_t i) const { return at(i).rank; }
  // Equal for two events exactly when their display names are equal (members of one communication
  // call share a name; the critical path pairs them by it).
  virtual std::uint64_t name_key(std::size_t i) const = 0;
  virtual std::string name(std::size_t i) const = 0;
  // Appends name(i) to `out` (a view may do it without allocating).
  virtual void append_name(std::size_t i, std::string& out) const { out += name(i); }
  // Peer ranks of a communication event (docs/metrics.md "Trace"); empty for compute.
  virtual std::span<const std::int32_t> peers(std::size_t i) const = 0;
  // Start and end of every event in one array (size() entries) when the view holds them so, else
  // nullptr; lets the critical path avoid a copy.
  virtual const TaskTimes* times() const { return nullptr; }
};

}  // namespace hcpsim
