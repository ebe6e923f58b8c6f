// Critical path from a trace alone (docs/metrics.md "Critical path"): walk back from the task that
// ends last. A compute task's predecessor is the task of its rank that ended last before it started;
// a communication task is replaced by the member of its call that became ready last (that member's
// readiness is what the call waited for), whose own predecessor is then looked up on its rank.
#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "engine/report/report.h"

namespace hcpsim {

std::vector<CriticalPathEntry> critical_path(const Trace& t) {
  std::vector<CriticalPathEntry> path;
  const auto& ev = t.events;
  if (ev.empty()) return path;
  double t0 = ev[0].start_s, t1 = ev[0].end_s;
  for (const auto& e : ev) {
    t0 = std::min(t0, e.start_s);
    t1 = std::max(t1, e.end_s);
  }
  const double tol = 1e-9 * std::max(1e-12, t1 - t0);
  // Per rank: event indices sorted by end time.
  std::map<std::int32_t, std::vector<std::size_t>> by_rank;
  for (std::size_t i = 0; i < ev.size(); ++i) by_rank[ev[i].rank].push_back(i);
  for (auto& [r, v] : by_rank)
    std::sort(v.begin(), v.end(), [&](std::size_t a, std::size_t b) {
      return ev[a].end_s != ev[b].end_s ? ev[a].end_s < ev[b].end_s : a < b;
    });
  // Members of one communication call share name and kind; partners are linked through peers.
  std::unordered_map<std::string, std::vector<std::size_t>> by_name;
  for (std::size_t i = 0; i < ev.size(); ++i)
    if (is_communication(ev[i].kind)) by_name[ev[i].name].push_back(i);
  auto latest_partner = [&](std::size_t cur) {
    std::size_t best = cur;
    const auto& c = ev[cur];
    for (const std::size_t j : by_name[c.name]) {
      const auto& p = ev[j];
      if (j == cur || p.kind != c.kind || std::abs(p.end_s - c.end_s) > tol) continue;
      const bool linked = std::find(c.peers.begin(), c.peers.end(), p.rank) != c.peers.end() ||
                          std::find(p.peers.begin(), p.peers.end(), c.rank) != p.peers.end();
      if (linked && p.start_s > ev[best].start_s + tol) best = j;
    }
    return best;
  };
  std::size_t cur = 0;
  for (std::size_t i = 1; i < ev.size(); ++i)
    if (ev[i].end_s > ev[cur].end_s || (ev[i].end_s == ev[cur].end_s && ev[i].rank < ev[cur].rank)) cur = i;
  std::unordered_set<std::size_t> visited;
  double frontier = ev[cur].end_s;
  while (true) {
    if (is_communication(ev[cur].kind)) cur = latest_partner(cur);
    if (!visited.insert(cur).second) break;
    const auto& e = ev[cur];
    // The predecessor search allows `tol` of overlap, so a task may end a hair after the frontier it
    // hands over to; the entry is clipped to [start, frontier] and never has a negative length.
    const double end = std::min(e.end_s, frontier);
    const double start = std::min(e.start_s, end);
    path.push_back({e.task, e.rank, e.kind, e.name, start, end});
    frontier = start;
    // Predecessor: same rank, latest end not after this start.
    const auto& v = by_rank[e.rank];
    auto it = std::upper_bound(v.begin(), v.end(), e.start_s + tol,
                               [&](double x, std::size_t i) { return x < ev[i].end_s; });
    std::size_t next = ev.size();
    while (it != v.begin()) {
      --it;
      if (*it != cur && !visited.count(*it)) {
        next = *it;
        break;
      }
    }
    if (next == ev.size()) break;
    cur = next;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace hcpsim
