// Critical path from the events alone (docs/metrics.md "Critical path"): walk back from the task that
// ends last. A compute task's predecessor is the task of its rank that ended last before it started;
// a communication task is replaced by the member of its call that became ready last (that member's
// readiness is what the call waited for), whose own predecessor is then looked up on its rank.
#include "engine/report/critical_path.h"
#include "engine/report/rank_index.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "engine/trace/graph_event_view.h"
#include "engine/trace/trace_event_view.h"

namespace hcpsim {

namespace {

// Members of one communication call share name and kind; partners are linked through peers.
// Grouped by name in one pass: a dense id per distinct name (a few hundred), each with its events
// in event order. Members of one call are mostly consecutive events: the last key's id is checked
// before the map.
struct CallMembers {
  std::unordered_map<std::uint64_t, std::uint32_t> name_id;
  std::vector<std::vector<std::uint32_t>> by_name;   // by name id
};

template <class View>
CallMembers call_members(const View& v) {
  CallMembers c;
  std::uint64_t last_key = 0;
  std::vector<std::uint32_t>* last = nullptr;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!is_communication(v.at(i).kind)) continue;
    const std::uint64_t key = v.name_key(i);
    if (last == nullptr || key != last_key) {
      const auto [it, added] = c.name_id.emplace(key, static_cast<std::uint32_t>(c.by_name.size()));
      if (added) c.by_name.emplace_back();
      last_key = key;
      last = &c.by_name[it->second];
    }
    last->push_back(static_cast<std::uint32_t>(i));
  }
  return c;
}

// The first start, the last end, and the task that ends last (of the lowest rank, first in event
// order among equals), where the path starts; found in one pass over n > 0 events.
struct PathEnd {
  double t0 = 0, t1 = 0;
  std::size_t task = 0;
};

PathEnd path_end(const TaskTimes* times, std::size_t n, std::span<const std::int32_t> slot_of) {
  PathEnd p{times[0].start_s, times[0].end_s, 0};
  for (std::size_t i = 1; i < n; ++i) {
    p.t0 = std::min(p.t0, times[i].start_s);
    if (times[i].end_s > p.t1) {
      p.t1 = times[i].end_s;
      p.task = i;
    } else if (times[i].end_s == p.t1 && slot_of[i] < slot_of[p.task]) {   // a lower rank (from the rank array)
      p.task = i;
    }
  }
  return p;
}

// critical_path_steps over a view of type View (EventView, or GraphEventView whose calls are not
// virtual); slot_of[i] is the RankIndex index of event i's rank.
template <class View>
std::vector<PathStep> steps_of(const View& v, const RankIndex& ranks, std::span<const std::int32_t> slot_of,
                              const EventsByRank& grouped) {
  std::vector<PathStep> path;
  const std::size_t n = v.size();
  if (n == 0) return path;
  // Start and end of every event in one array: the view's own when it has one, else a copy.
  std::vector<TaskTimes> copy;
  const TaskTimes* times = v.times();
  if (times == nullptr) {
    copy.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const EventFacts e = v.at(i);
      copy[i] = {e.start_s, e.end_s};
    }
    times = copy.data();
  }
  auto start = [times](std::size_t i) { return times[i].start_s; };
  auto end = [times](std::size_t i) { return times[i].end_s; };
  const PathEnd last = path_end(times, n, slot_of);
  const double tol = 1e-9 * std::max(1e-12, last.t1 - last.t0);
  // Per rank: its event indices sorted by end time (ties by index), made when the path first
  // reaches the rank (a path visits few of the ranks of a large run). A rank's events lie far apart
  // in event order: their end times are read once, in order and asked for 16 events ahead, and
  // sorted with their indices (the same comparisons as sorting the indices by end time, hence the
  // same order), instead of read at random during the sort.
  std::vector<std::vector<std::uint32_t>> by_end(ranks.size());
  std::vector<std::pair<double, std::uint32_t>> keyed;
  auto events_by_end = [&](std::size_t ri) -> const std::vector<std::uint32_t>& {
    std::vector<std::uint32_t>& out = by_end[ri];
    if (!out.empty()) return out;
    constexpr std::size_t kPrefetchAhead_events = 16;
    const std::uint32_t b = grouped.first[ri], e = grouped.first[ri + 1];
    keyed.clear();
    for (std::uint32_t k = b; k < e; ++k) {
      if (k + kPrefetchAhead_events < e) __builtin_prefetch(times + grouped.index[k + kPrefetchAhead_events]);
      keyed.emplace_back(end(grouped.index[k]), grouped.index[k]);
    }
    using Keyed = std::pair<double, std::uint32_t>;
    std::sort(keyed.begin(), keyed.end(), [](const Keyed& x, const Keyed& y) {
      return x.first != y.first ? x.first < y.first : x.second < y.second;
    });
    out.reserve(keyed.size());
    for (const Keyed& k : keyed) out.push_back(k.second);
    return out;
  };
  const CallMembers calls = call_members(v);
  auto latest_partner = [&](std::size_t cur) {
    std::size_t best = cur;
    const EventFacts c = v.at(cur);
    const auto c_peers = v.peers(cur);
    for (const std::uint32_t j : calls.by_name[calls.name_id.at(v.name_key(cur))]) {
      if (j == cur || std::abs(end(j) - c.end_s) > tol) continue;
      // Linked first (a member's rank from the rank array, not from its event), then the kind: of
      // the many members of a call that end together, few are linked.
      const std::int32_t p_rank = ranks.rank(static_cast<std::size_t>(slot_of[j]));
      if (std::find(c_peers.begin(), c_peers.end(), p_rank) == c_peers.end()) {
        const auto p_peers = v.peers(j);
        if (std::find(p_peers.begin(), p_peers.end(), c.rank) == p_peers.end()) continue;
      }
      const EventFacts p = v.at(j);
      if (p.kind == c.kind && p.start_s > start(best) + tol) best = j;
    }
    return best;
  };
  std::size_t cur = last.task;
  std::unordered_set<std::size_t> visited;
  double frontier = end(cur);
  while (true) {
    if (is_communication(v.at(cur).kind)) cur = latest_partner(cur);
    if (!visited.insert(cur).second) break;
    // The predecessor search allows `tol` of overlap, so a task may end a hair after the frontier it
    // hands over to; the entry is clipped to [start, frontier] and never has a negative length.
    const double e_end = std::min(end(cur), frontier);
    const double e_start = std::min(start(cur), e_end);
    path.push_back({cur, e_start, e_end});
    frontier = e_start;
    // Predecessor: same rank, latest end not after this start.
    const std::vector<std::uint32_t>& same_rank = events_by_end(static_cast<std::size_t>(slot_of[cur]));
    const auto first = same_rank.begin();
    auto it = std::upper_bound(first, same_rank.end(), start(cur) + tol,
                               [&](double x, std::uint32_t i) { return x < end(i); });
    std::size_t next = n;
    while (it != first) {
      --it;
      if (*it != cur && !visited.count(*it)) {
        next = *it;
        break;
      }
    }
    if (next == n) break;
    cur = next;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace

std::vector<PathStep> critical_path_steps(const EventView& v, const RankIndex& ranks,
                                          std::span<const std::int32_t> slot_of, const EventsByRank& grouped) {
  if (const auto* g = dynamic_cast<const GraphEventView*>(&v)) return steps_of(*g, ranks, slot_of, grouped);
  return steps_of(v, ranks, slot_of, grouped);
}

std::vector<PathStep> critical_path_steps(const EventView& v) {
  std::vector<std::int32_t> slot_of(v.size());
  for (std::size_t i = 0; i < slot_of.size(); ++i) slot_of[i] = v.rank(i);
  const RankIndex ranks(slot_of);
  for (auto& x : slot_of) x = static_cast<std::int32_t>(ranks.index(x));
  return critical_path_steps(v, ranks, slot_of, group_by_rank(slot_of, ranks.size()));
}

std::vector<CriticalPathEntry> critical_path_entries(const EventView& v, const std::vector<PathStep>& path) {
  std::vector<CriticalPathEntry> out;
  out.reserve(path.size());
  for (const PathStep& s : path) {
    const EventFacts e = v.at(s.index);
    out.push_back({e.task, e.rank, e.kind, v.name(s.index), s.start_s, s.end_s});
  }
  return out;
}

std::vector<CriticalPathEntry> critical_path(const EventView& v) { return critical_path_entries(v, critical_path_steps(v)); }

std::vector<CriticalPathEntry> critical_path(const Trace& t) { return critical_path(TraceEventView(t)); }

}  // namespace hcpsim
