#include "gui/models/timeline_trace.h"

#include <algorithm>
#include <limits>
#include <map>

#include "engine/measured/measured_as_trace.h"
#include "engine/measured/measured_input.h"
#include "engine/compare/trace_compare.h"
#include "engine/report/report.h"

namespace hcpsim::gui {
namespace {

int stream_order(const std::string& s) {
  Stream st;
  if (parse_stream(s, st)) return static_cast<int>(st);
  return kStreamCount;
}

void finish(TimelineTrace& t, std::vector<TimelineEvent>& evs, const std::vector<TimelineLane>& lanes_in) {
  // Sort lanes (rank, stream order, name) and renumber.
  std::vector<int> order(lanes_in.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const auto& la = lanes_in[static_cast<std::size_t>(a)];
    const auto& lb = lanes_in[static_cast<std::size_t>(b)];
    if (la.rank != lb.rank) return la.rank < lb.rank;
    const int oa = stream_order(la.stream), ob = stream_order(lb.stream);
    if (oa != ob) return oa < ob;
    return la.stream < lb.stream;
  });
  std::vector<int> new_index(lanes_in.size());
  t.lanes.clear();
  for (std::size_t i = 0; i < order.size(); ++i) {
    new_index[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
    t.lanes.push_back(lanes_in[static_cast<std::size_t>(order[i])]);
  }
  for (auto& e : evs) e.lane = new_index[static_cast<std::size_t>(e.lane)];
  std::sort(evs.begin(), evs.end(), [](const TimelineEvent& a, const TimelineEvent& b) {
    return a.lane != b.lane ? a.lane < b.lane : a.start_s < b.start_s;
  });
  t.events = std::move(evs);
  if (!t.events.empty()) {
    t.begin_s = t.events.front().start_s;
    t.end_s = t.events.front().end_s;
    for (const auto& e : t.events) {
      t.begin_s = std::min(t.begin_s, e.start_s);
      t.end_s = std::max(t.end_s, e.end_s);
    }
  }
}

}  // namespace

std::pair<std::size_t, std::size_t> TimelineTrace::lane_range(int lane) const {
  auto lo = std::lower_bound(events.begin(), events.end(), lane,
                             [](const TimelineEvent& e, int l) { return e.lane < l; });
  auto hi = std::upper_bound(lo, events.end(), lane,
                             [](int l, const TimelineEvent& e) { return l < e.lane; });
  return {static_cast<std::size_t>(lo - events.begin()), static_cast<std::size_t>(hi - events.begin())};
}

TimelineTrace load_chrome_trace(const std::string& path) {
  if (is_profiler_trace_file(path)) return load_profiler_trace(path);
  TimelineTrace t = from_engine_trace(read_chrome_trace(path));
  t.source = path;
  return t;
}

MeasuredKind timeline_kind(const TimelineEvent& e) {
  return e.measured_only ? *e.measured_only : measured_kind_of(e.kind);
}

namespace {

// The engine trace's events, then `others` (kernels without a task kind), on rank x stream lanes.
TimelineTrace make_timeline(const Trace& tr, std::vector<MeasuredOnlyEvent> others) {
  TimelineTrace t;
  t.source = tr.scenario.empty() ? "<memory>" : tr.scenario;
  t.trace = tr;
  std::vector<TimelineEvent> evs;
  std::vector<TimelineLane> lanes;
  std::map<std::pair<int, std::string>, int> lane_of;
  auto add = [&](const TraceEvent& x, std::optional<MeasuredKind> measured_only) {
    TimelineEvent e;
    static_cast<TraceEvent&>(e) = x;
    e.measured_only = measured_only;
    const std::string stream = to_string(x.stream);
    auto [it, fresh] = lane_of.try_emplace({x.rank, stream}, static_cast<int>(lanes.size()));
    if (fresh) lanes.push_back({x.rank, stream});
    e.lane = it->second;
    evs.push_back(std::move(e));
  };
  for (const auto& x : tr.events) add(x, std::nullopt);
  for (auto& o : others) add(o.event, o.kind);
  finish(t, evs, lanes);
  return t;
}

}  // namespace

TimelineTrace load_profiler_trace(const std::string& path) {
  std::vector<MeasuredOnlyEvent> others;
  const Trace tr = measured_step_as_trace(read_measured_run({path}, KernelClassifier()), 0, nullptr, &others);
  TimelineTrace t = make_timeline(tr, std::move(others));
  t.source = path;
  return t;
}

TimelineTrace from_engine_trace(const Trace& tr) { return make_timeline(tr, {}); }

void unify_lanes(TimelineTrace& a, TimelineTrace& b) {
  std::vector<TimelineLane> lanes;
  std::map<std::pair<int, std::string>, int> index;
  for (const auto* t : {&a, &b})
    for (const auto& l : t->lanes)
      if (index.try_emplace({l.rank, l.stream}, static_cast<int>(lanes.size())).second) lanes.push_back(l);
  for (auto* t : {&a, &b}) {
    std::vector<TimelineEvent> evs = std::move(t->events);
    for (auto& e : evs) {
      const auto& l = t->lanes[static_cast<std::size_t>(e.lane)];
      e.lane = index.at({l.rank, l.stream});
    }
    const double b0 = t->begin_s, b1 = t->end_s;
    finish(*t, evs, lanes);
    t->begin_s = std::min(t->begin_s, b0);
    t->end_s = std::max(t->end_s, b1);
  }
}

std::vector<std::size_t> critical_path(const TimelineTrace& t) {
  std::map<std::pair<TaskId, int>, std::size_t> index;   // (task, rank) -> event
  for (std::size_t i = 0; i < t.events.size(); ++i) index.emplace(std::make_pair(t.events[i].task, t.events[i].rank), i);
  std::vector<std::size_t> path;
  for (const CriticalPathEntry& e : hcpsim::critical_path(t.trace))
    if (auto it = index.find({e.task, e.rank}); it != index.end()) path.push_back(it->second);
  return path;
}

std::vector<MatchedTask> match_tasks(const TimelineTrace& predicted, const TimelineTrace& measured) {
  CompareOptions o;
  o.worst_count = std::numeric_limits<std::size_t>::max();
  std::vector<MatchedTask> out;
  for (const TaskError& e : compare_traces(predicted.trace, measured.trace, o).worst) {
    MatchedTask m;
    m.task = static_cast<std::int64_t>(e.task);
    m.has_kind = true;
    m.kind = e.kind;
    m.predicted_s = e.predicted_s;
    m.measured_s = e.measured_s;
    out.push_back(m);
  }
  std::sort(out.begin(), out.end(), [](const MatchedTask& a, const MatchedTask& b) { return a.task < b.task; });
  return out;
}

}  // namespace hcpsim::gui
