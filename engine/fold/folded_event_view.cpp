#include "engine/fold/folded_event_view.h"

#include <algorithm>
#include <utility>

namespace hcpsim {

FoldedEventView::FoldedEventView(const EventView& unit, int simulated_ranks, std::vector<int> replicas)
    : unit_(unit), simulated_ranks_(simulated_ranks), replicas_(std::move(replicas)) {}

EventFacts FoldedEventView::moved(std::size_t i, EventFacts e) const {
  const std::size_t n = unit_.size();
  const auto k = static_cast<std::size_t>(replicas_[i / n]);
  e.rank += static_cast<std::int32_t>(k * static_cast<std::size_t>(simulated_ranks_));
  e.task += static_cast<TaskId>(k * n);
  return e;
}

EventFacts FoldedEventView::at(std::size_t i) const { return moved(i, unit_.at(i % unit_.size())); }

EventFacts FoldedEventView::untimed(std::size_t i) const { return moved(i, unit_.untimed(i % unit_.size())); }

std::span<const std::int32_t> FoldedEventView::peers(std::size_t i) const {
  const std::size_t n = unit_.size();
  const auto shift = static_cast<std::int32_t>(replicas_[i / n] * simulated_ranks_);
  const auto base = unit_.peers(i % n);
  peers_.assign(base.begin(), base.end());
  for (auto& p : peers_) p += shift;
  return peers_;
}

std::vector<int> replicas_kept(const TraceFilter& filter, int simulated_ranks, int replicas) {
  std::vector<int> out;
  if (filter.ranks.empty()) {
    for (int k = 0; k < replicas; ++k) out.push_back(k);
    return out;
  }
  for (const auto& [first, last] : filter.ranks)
    for (int k = first / simulated_ranks; k <= last / simulated_ranks && k < replicas; ++k) out.push_back(k);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace hcpsim
