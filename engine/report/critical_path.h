#pragma once
// The critical path over any EventView (docs/metrics.md "Critical path"). report.h declares the
// Trace form that most callers use.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/trace/event_view.h"
#include "engine/report/rank_index.h"
#include "engine/report/report.h"

namespace hcpsim {

// One step of the path: the event (index into the view) and the part of it the path spends there.
struct PathStep {
  std::size_t index = 0;
  double start_s = 0;
  double end_s = 0;
};

// The path, first task first.
std::vector<PathStep> critical_path_steps(const EventView& v);
// The same, for a caller that has already numbered the events' ranks and grouped the events by
// rank (the report shares them with the critical path): slot_of[i] is the index in `ranks` of event
// i's rank, and `grouped` is group_by_rank(slot_of, ranks.size()).
std::vector<PathStep> critical_path_steps(const EventView& v, const RankIndex& ranks,
                                          std::span<const std::int32_t> slot_of, const EventsByRank& grouped);
// The same steps as report entries (task id, rank, kind, display name).
std::vector<CriticalPathEntry> critical_path_entries(const EventView& v, const std::vector<PathStep>& path);
std::vector<CriticalPathEntry> critical_path(const EventView& v);

}  // namespace hcpsim
