#pragma once
// StreamedEventView: the events of a run still in progress. at(i) waits until task i's times are
// final (TaskProgress) and then reads them from the view it wraps; everything that does not depend
// on the run (untimed facts, names, peers) is answered at once. A reader on another thread (the
// trace file writer) formats the first events while the run computes the later ones.
#include "engine/trace/event_view.h"
#include "engine/trace/task_progress.h"

namespace hcpsim {

class StreamedEventView : public EventView {
 public:
  // Keeps references to both, which must outlive the view. Event i of `inner` must be task i of the
  // run `progress` follows (a GraphEventView).
  StreamedEventView(const EventView& inner, const TaskProgress& progress) : inner_(inner), progress_(progress) {}
  std::size_t size() const override { return inner_.size(); }
  // Throws RunAbandoned when the run failed before task i's times were final.
  EventFacts at(std::size_t i) const override {
    if (!progress_.wait_for(i + 1)) throw RunAbandoned();
    return inner_.at(i);
  }
  EventFacts untimed(std::size_t i) const override { return inner_.untimed(i); }
  std::int32_t rank(std::size_t i) const override { return inner_.rank(i); }
  std::uint64_t name_key(std::size_t i) const override { return inner_.name_key(i); }
  std::string name(std::size_t i) const override { return inner_.name(i); }
  void append_name(std::size_t i, std::string& out) const override { inner_.append_name(i, out); }
  std::span<const std::int32_t> peers(std::size_t i) const override { return inner_.peers(i); }
  // No times array: they are read one by one through at(), each after its wait.

 private:
  const EventView& inner_;
  const TaskProgress& progress_;
};

}  // namespace hcpsim
