#pragma once
// GraphEventView: the events of a run as the graph plus the task times (engine/trace/task_times.h).
// Event i is task i. Names are built only when asked for; the peers of every communication task are
// kept in one compressed array (4 bytes a peer), built once in the constructor.
#include <vector>

#include "engine/trace/event_view.h"
#include "engine/trace/task_times.h"

namespace hcpsim {

class GraphEventView : public EventView {
 public:
  // Keeps references to `g` and `times`, which must outlive the view. Precondition:
  // times.size() == g.size().
  GraphEventView(const TaskGraph& g, const std::vector<TaskTimes>& times);
  std::size_t size() const override { return g_.size(); }
  EventFacts at(std::size_t i) const override;
  std::int32_t rank(std::size_t i) const override { return g_.task(static_cast<TaskId>(i)).rank; }
  std::uint64_t name_key(std::size_t i) const override;
  std::string name(std::size_t i) const override { return g_.display_name(g_.task(static_cast<TaskId>(i))); }
  // As TaskGraph::display_name, formatted in place.
  void append_name(std::size_t i, std::string& out) const override;
  std::span<const std::int32_t> peers(std::size_t i) const override {
    return {peers_.data() + peer_begin_[i], peers_.data() + peer_begin_[i + 1]};
  }
  const TaskTimes* times() const override { return times_.data(); }
  const TaskGraph& graph() const { return g_; }

 private:
  const TaskGraph& g_;
  const std::vector<TaskTimes>& times_;
  std::vector<std::uint32_t> peer_begin_;   // by task, plus one: peers of task i are [begin[i], begin[i+1])
  std::vector<std::int32_t> peers_;
};

}  // namespace hcpsim
