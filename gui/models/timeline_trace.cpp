#include "gui/models/timeline_trace.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace hcpsim::gui {
namespace {

using json = nlohmann::json;

int stream_order(const std::string& s) {
  Stream st;
  if (parse_stream(s, st)) return static_cast<int>(st);
  return kStreamCount;
}

double num(const json& o, const char* key, double fallback = 0) {
  auto it = o.find(key);
  if (it == o.end()) return fallback;
  if (it->is_number()) return it->get<double>();
  if (it->is_string()) {
    try {
      return std::stod(it->get<std::string>());
    } catch (...) {
      return fallback;
    }
  }
  return fallback;
}

struct ThreadInfo {
  int rank = -1;
  std::string stream;
};

ThreadInfo parse_thread_name(const std::string& name) {
  ThreadInfo t;
  static const std::regex rank_re(R"(rank\s*(\d+))", std::regex::icase);
  std::smatch m;
  if (std::regex_search(name, m, rank_re)) t.rank = std::stoi(m[1]);
  for (int s = 0; s < kStreamCount; ++s) {
    const std::string sn = to_string(static_cast<Stream>(s));
    if (name.find(sn) != std::string::npos && sn.size() > t.stream.size()) t.stream = sn;
  }
  if (t.stream.empty()) t.stream = name;
  return t;
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

TimelineTrace parse_chrome_trace(const std::string& text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    throw std::runtime_error(source + ": not valid JSON: " + e.what());
  }
  const json* list = nullptr;
  if (doc.is_array()) list = &doc;
  else if (doc.is_object() && doc.contains("traceEvents") && doc["traceEvents"].is_array()) list = &doc["traceEvents"];
  if (!list) throw std::runtime_error(source + ": expected a JSON array of events or an object with \"traceEvents\"");

  std::map<std::pair<long long, long long>, ThreadInfo> threads;   // (pid, tid) -> rank/stream
  for (const auto& ev : *list) {
    if (!ev.is_object() || ev.value("ph", "") != "M" || ev.value("name", "") != "thread_name") continue;
    const auto key = std::make_pair(static_cast<long long>(num(ev, "pid")), static_cast<long long>(num(ev, "tid")));
    if (ev.contains("args") && ev["args"].is_object() && ev["args"].contains("name") && ev["args"]["name"].is_string())
      threads[key] = parse_thread_name(ev["args"]["name"].get<std::string>());
  }

  TimelineTrace t;
  t.source = source;
  std::vector<TimelineEvent> evs;
  std::vector<TimelineLane> lanes;
  std::map<std::pair<int, std::string>, int> lane_of;
  std::size_t index = 0;
  for (const auto& ev : *list) {
    ++index;
    if (!ev.is_object() || ev.value("ph", "") != "X") continue;
    if (!ev.contains("ts") || !ev["ts"].is_number())
      throw std::runtime_error(source + ": event " + std::to_string(index) + " (\"ph\":\"X\") has no numeric \"ts\"");
    const json args = ev.contains("args") && ev["args"].is_object() ? ev["args"] : json::object();
    TimelineEvent e;
    e.start_s = num(ev, "ts") * 1e-6;
    e.end_s = e.start_s + std::max(0.0, num(ev, "dur")) * 1e-6;
    e.name = ev.value("name", "");
    e.task = static_cast<std::int64_t>(num(args, "task", -1));
    e.bytes = num(args, "bytes");
    e.flops = num(args, "flops");
    e.step = static_cast<int>(num(args, "step", -1));
    std::string kind = args.contains("kind") && args["kind"].is_string() ? args["kind"].get<std::string>() : ev.value("cat", "");
    e.has_kind = parse_task_kind(kind, e.kind);
    if (args.contains("peers") && args["peers"].is_array())
      for (const auto& p : args["peers"]) if (p.is_number()) e.peers.push_back(p.get<int>());

    const auto key = std::make_pair(static_cast<long long>(num(ev, "pid")), static_cast<long long>(num(ev, "tid")));
    ThreadInfo ti;
    if (auto it = threads.find(key); it != threads.end()) ti = it->second;
    if (args.contains("rank") && args["rank"].is_number()) ti.rank = args["rank"].get<int>();
    if (args.contains("stream") && args["stream"].is_string()) ti.stream = args["stream"].get<std::string>();
    if (ti.rank < 0) ti.rank = static_cast<int>(key.second);
    if (ti.stream.empty()) ti.stream = "tid " + std::to_string(key.second);
    e.rank = ti.rank;
    auto [it, fresh] = lane_of.try_emplace({ti.rank, ti.stream}, static_cast<int>(lanes.size()));
    if (fresh) lanes.push_back({ti.rank, ti.stream});
    e.lane = it->second;
    evs.push_back(std::move(e));
  }
  finish(t, evs, lanes);
  return t;
}

TimelineTrace load_chrome_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open trace file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_chrome_trace(ss.str(), path);
}

TimelineTrace from_engine_trace(const Trace& tr) {
  TimelineTrace t;
  t.source = tr.scenario.empty() ? "<memory>" : tr.scenario;
  std::vector<TimelineEvent> evs;
  std::vector<TimelineLane> lanes;
  std::map<std::pair<int, std::string>, int> lane_of;
  for (const auto& x : tr.events) {
    TimelineEvent e;
    e.task = x.task;
    e.rank = x.rank;
    e.has_kind = true;
    e.kind = x.kind;
    e.start_s = x.start_s;
    e.end_s = x.end_s;
    e.bytes = x.bytes;
    e.flops = x.flops;
    e.step = x.step;
    e.name = x.name;
    e.peers.assign(x.peers.begin(), x.peers.end());
    const std::string stream = to_string(x.stream);
    auto [it, fresh] = lane_of.try_emplace({x.rank, stream}, static_cast<int>(lanes.size()));
    if (fresh) lanes.push_back({x.rank, stream});
    e.lane = it->second;
    evs.push_back(std::move(e));
  }
  finish(t, evs, lanes);
  return t;
}

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
  std::vector<std::size_t> path;
  if (t.events.empty()) return path;
  // Per rank: event indices sorted by end time.
  std::map<int, std::vector<std::size_t>> by_rank;
  for (std::size_t i = 0; i < t.events.size(); ++i) by_rank[t.events[i].rank].push_back(i);
  for (auto& [r, v] : by_rank)
    std::sort(v.begin(), v.end(), [&](std::size_t a, std::size_t b) { return t.events[a].end_s < t.events[b].end_s; });
  std::size_t cur = 0;
  for (std::size_t i = 1; i < t.events.size(); ++i)
    if (t.events[i].end_s > t.events[cur].end_s) cur = i;
  const double eps = 1e-12 + 1e-9 * (t.end_s - t.begin_s);
  std::vector<char> seen(t.events.size(), 0);
  while (true) {
    path.push_back(cur);
    seen[cur] = 1;
    const TimelineEvent& e = t.events[cur];
    std::vector<int> ranks{e.rank};
    ranks.insert(ranks.end(), e.peers.begin(), e.peers.end());
    long best = -1;
    for (int r : ranks) {
      auto it = by_rank.find(r);
      if (it == by_rank.end()) continue;
      const auto& v = it->second;
      // Last event of this rank that ended no later than e started.
      auto ub = std::upper_bound(v.begin(), v.end(), e.start_s + eps,
                                 [&](double x, std::size_t idx) { return x < t.events[idx].end_s; });
      while (ub != v.begin()) {
        --ub;
        if (!seen[*ub]) {
          if (best < 0 || t.events[*ub].end_s > t.events[static_cast<std::size_t>(best)].end_s) best = static_cast<long>(*ub);
          break;
        }
      }
    }
    if (best < 0) break;
    cur = static_cast<std::size_t>(best);
  }
  std::reverse(path.begin(), path.end());
  return path;
}

std::vector<MatchedTask> match_tasks(const TimelineTrace& predicted, const TimelineTrace& measured) {
  // Key: task id when present, else (rank, name, n-th occurrence).
  auto keys = [](const TimelineTrace& t) {
    std::map<std::string, std::size_t> out;
    std::map<std::string, int> seen;
    for (std::size_t i = 0; i < t.events.size(); ++i) {
      const auto& e = t.events[i];
      std::string k = e.task >= 0 ? "#" + std::to_string(e.task)
                                  : std::to_string(e.rank) + "|" + e.name;
      if (e.task < 0) k += "|" + std::to_string(seen[k]++);
      out.emplace(k, i);
    }
    return out;
  };
  const auto kp = keys(predicted), km = keys(measured);
  std::vector<MatchedTask> out;
  for (const auto& [k, ip] : kp) {
    auto it = km.find(k);
    if (it == km.end()) continue;
    const auto& a = predicted.events[ip];
    const auto& b = measured.events[it->second];
    MatchedTask m;
    m.task = a.task;
    m.has_kind = a.has_kind;
    m.kind = a.kind;
    m.predicted_s = a.end_s - a.start_s;
    m.measured_s = b.end_s - b.start_s;
    out.push_back(m);
  }
  return out;
}

}  // namespace hcpsim::gui
