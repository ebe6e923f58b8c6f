#include "engine/trace/trace_event_view.h"

#include <string_view>

namespace hcpsim {

TraceEventView::TraceEventView(const Trace& t) : t_(t) {
  std::unordered_map<std::string_view, std::uint32_t> ids;
  name_ids_.reserve(t.events.size());
  for (const auto& e : t.events)
    name_ids_.push_back(ids.emplace(e.name, static_cast<std::uint32_t>(ids.size())).first->second);
}

EventFacts TraceEventView::at(std::size_t i) const { return facts_of(t_.events[i]); }

EventFacts facts_of(const TraceEvent& e) {
  return {e.task, e.rank, e.stream, e.kind, e.pass, e.layer, e.step, e.start_s, e.end_s, e.bytes, e.flops};
}

}  // namespace hcpsim
