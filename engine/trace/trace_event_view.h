#pragma once
// TraceEventView: an EventView over the events of a Trace (a run kept in memory, or a trace file).
#include <unordered_map>
#include <vector>

#include "engine/trace/event_view.h"
#include "engine/trace/trace.h"

namespace hcpsim {

class TraceEventView : public EventView {
 public:
  // Keeps a reference to `t`, which must outlive the view.
  explicit TraceEventView(const Trace& t);
  std::size_t size() const override { return t_.events.size(); }
  EventFacts at(std::size_t i) const override;
  std::uint64_t name_key(std::size_t i) const override { return name_ids_[i]; }
  std::string name(std::size_t i) const override { return t_.events[i].name; }
  std::span<const std::int32_t> peers(std::size_t i) const override { return t_.events[i].peers; }

 private:
  const Trace& t_;
  std::vector<std::uint32_t> name_ids_;   // interned display names, by event
};

}  // namespace hcpsim
