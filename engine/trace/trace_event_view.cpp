#include "engine/trace/trace_event_view.h"

#include <string_view>

namespace hcpsim {

TraceEventView::TraceEventView(const Trace& t) : t_(t) {
  std::unordered_map<std::string_view, std::uint32_t> ids;
  name_ids_.reserve(t.events.size());
  for (const auto& e : t.events)
    name_ids_.push_back(ids.emplace(e.name, static_cast<std::uint32_t>(ids.size())).first->second);
}

EventFacts TraceEventView::at(std::size_t i) const { return t_.events[i]; }

}  // namespace hcpsim
