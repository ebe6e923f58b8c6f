#pragma once
// The critical path over any EventView (docs/metrics.md "Critical path"). report.h declares the
// Trace form that most callers use.
#include <cstddef>
#include <vector>

#include "engine/trace/event_view.h"
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
// The same steps as report entries (task id, rank, kind, display name).
std::vector<CriticalPathEntry> critical_path_entries(const EventView& v, const std::vector<PathStep>& path);
std::vector<CriticalPathEntry> critical_path(const EventView& v);

}  // namespace hcpsim
