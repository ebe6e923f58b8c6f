#include "engine/report/report.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <future>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "engine/report/critical_path.h"
#include "engine/report/intervals.h"
#include "engine/report/rank_index.h"
#include "engine/trace/graph_event_view.h"
#include "engine/trace/trace_event_view.h"

namespace hcpsim {
namespace {

bool is_attention_block(const EventFacts& e) { return e.kind != TaskKind::Gemm && e.stream != Stream::NcclTp; }

struct Span {
  double start = 1e300, end = -1e300;
  void add(const EventFacts& e) {
    start = std::min(start, e.start_s);
    end = std::max(end, e.end_s);
  }
  double length() const { return end > start ? end - start : 0; }
};

// Slowest rank's span of the events selected for (layer, pass); returns (seconds, rank). `spans` is
// indexed by RankIndex (a rank without such events has an empty span, never the slowest).
std::pair<double, int> slowest_span(const std::vector<Span>& spans, const RankIndex& ranks) {
  double best = 0;
  int rank = -1;
  for (std::size_t ri = 0; ri < spans.size(); ++ri)
    if (spans[ri].length() > best) {
      best = spans[ri].length();
      rank = ranks.rank(ri);
    }
  return {best, rank};
}

// Bytes this event puts on intra- and inter-node links (docs/metrics.md "Bytes per link class").
void classify_bytes(const EventFacts& e, std::span<const std::int32_t> peers, int gpn, double& intra, double& inter) {
  if (!is_communication(e.kind) || peers.empty() || e.bytes <= 0) return;
  const int node = e.rank / gpn;
  const bool ring = e.kind == TaskKind::AllGather || e.kind == TaskKind::ReduceScatter || e.kind == TaskKind::AllReduce;
  if (ring) {
    (peers[0] / gpn == node ? intra : inter) += e.bytes;
    return;
  }
  const double share = e.bytes / static_cast<double>(peers.size());
  for (const auto p : peers) (p / gpn == node ? intra : inter) += share;
}

// Where an event's busy interval is collected: compute events by stream, then communication events
// by stream.
constexpr std::size_t kLanes = 2 * kStreamCount;
std::uint8_t lane(const EventFacts& e) {
  return static_cast<std::uint8_t>((is_communication(e.kind) ? kStreamCount : 0) + static_cast<int>(e.stream));
}

// The events' ranks in one array (4 bytes an event), read once from the events, then replaced by
// their RankIndex indices: everything grouped by rank reads this array only. Each event's lane is
// noted in the same pass (1 byte an event), for the busy unions.
struct RankedEvents {
  RankedEvents(std::vector<std::int32_t> rank_of, std::vector<std::uint8_t> lanes)
      : slot_of(std::move(rank_of)), lane_of(std::move(lanes)), ranks(slot_of) {
    for (auto& s : slot_of) s = static_cast<std::int32_t>(ranks.index(s));
    grouped = group_by_rank(slot_of, ranks.size());
  }
  std::vector<std::int32_t> slot_of;   // RankIndex index of each event's rank
  std::vector<std::uint8_t> lane_of;   // each event's lane, for the busy unions
  RankIndex ranks;
  EventsByRank grouped;
};

template <class View>
RankedEvents rank_events(const View& v) {
  const std::size_t n = v.size();
  std::vector<std::int32_t> rank_of(n);
  std::vector<std::uint8_t> lanes(n);
  for (std::size_t i = 0; i < n; ++i) {
    const EventFacts e = v.at(i);
    rank_of[i] = e.rank;
    lanes[i] = lane(e);
  }
  return RankedEvents(std::move(rank_of), std::move(lanes));
}

// Busy unions per rank (vectors indexed by RankIndex: ascending ranks, as a map would visit them),
// one rank at a time, so that only one rank's raw intervals exist at once and the unions keep
// their merged parts only. Ranks are handed out by a counter, so that two threads can share them.
template <class View>
class BusyUnions {
 public:
  BusyUnions(const View& v, const RankedEvents& x) : compute(x.ranks.size()), comm(x.ranks.size()), v_(v), x_(x) {}
  // Builds the unions of the ranks not yet taken; safe to call from two threads at once.
  void build();

  std::vector<IntervalUnion> compute, comm;   // by RankIndex

 private:
  const View& v_;
  const RankedEvents& x_;
  std::atomic<std::size_t> next_rank_{0};
};

template <class View>
void BusyUnions<View>::build() {
  const std::size_t n = v_.size(), nr = x_.ranks.size();
  const TaskTimes* times = v_.times();
  // A rank's intervals by lane: the tasks of one stream follow each other, so each lane is
  // usually in ascending order already, and sorting a rank's intervals is merging its lanes.
  std::array<std::vector<std::pair<double, double>>, kLanes> lanes;
  std::vector<std::pair<double, double>> raw;
  auto union_of = [&](std::size_t lane0, std::size_t lane1) {
    raw.clear();
    for (std::size_t l = lane0; l < lane1; ++l) {
      const auto mid = static_cast<std::ptrdiff_t>(raw.size());
      raw.insert(raw.end(), lanes[l].begin(), lanes[l].end());
      if (!std::is_sorted(raw.begin() + mid, raw.end())) std::sort(raw.begin() + mid, raw.end());
      std::inplace_merge(raw.begin(), raw.begin() + mid, raw.end());
      lanes[l].clear();
    }
    return IntervalUnion::of_sorted(raw);   // the order std::sort gives: the same union, bit for bit
  };
  // A rank's events lie far apart in event order: each read is a cache miss unless asked for
  // early. With the view's array of times, that is the only read of an event here.
  constexpr std::size_t kPrefetchAhead_events = 16;
  const EventsByRank& grouped = x_.grouped;
  for (std::size_t ri = next_rank_++; ri < nr; ri = next_rank_++) {
    for (std::uint32_t k = grouped.first[ri]; k < grouped.first[ri + 1]; ++k) {
      const std::uint32_t i = grouped.index[k];
      double a = 0, b = 0;
      if (times != nullptr) {
        if (k + kPrefetchAhead_events < n) __builtin_prefetch(times + grouped.index[k + kPrefetchAhead_events]);
        a = times[i].start_s;
        b = times[i].end_s;
      } else {
        const EventFacts e = v_.at(i);
        a = e.start_s;
        b = e.end_s;
      }
      if (b > a) lanes[x_.lane_of[i]].emplace_back(a, b);
    }
    compute[ri] = union_of(0, kStreamCount);
    comm[ri] = union_of(kStreamCount, kLanes);
  }
}

// What one pass over the events collects, besides the Report fields it fills.
struct EventTotals {
  double t0 = 1e300, t1 = -1e300;
  std::vector<double> rank_end;   // by RankIndex
  std::set<int> layers;
  // Per layer and pass: attention-block and whole-layer spans per rank.
  std::map<std::pair<int, int>, std::vector<Span>> attn, whole;
  double flops[2] = {0, 0};       // attention forward, backward
};

// The pass over every event: spans, FLOPs, the makespan, layers, bytes per link class (into `r`).
template <class View>
EventTotals total_events(const View& v, const RankedEvents& x, Report& r) {
  const std::size_t n = v.size(), nr = x.ranks.size();
  EventTotals t;
  t.rank_end.assign(nr, 0.0);
  std::vector<bool> has_layer(1 << 16, false);   // by layer + 32768 (int16 layers; a tree insert per event cost more)
  // The events of one layer and pass are usually consecutive: their span vectors are remembered.
  std::pair<int, int> last_key{-1, -1};
  std::vector<Span>* last_whole = nullptr;
  std::vector<Span>* last_attn = nullptr;   // attn[last_key], once an event of that key needed it
  for (std::size_t i = 0; i < n; ++i) {
    const EventFacts e = v.at(i);
    const auto ri = static_cast<std::size_t>(x.slot_of[i]);
    const std::pair<int, int> key{e.layer, static_cast<int>(e.pass)};
    if (last_whole == nullptr || key != last_key) {
      auto& w = t.whole[key];
      if (w.empty()) w.resize(nr);
      last_whole = &w;
      last_attn = nullptr;
      last_key = key;
    }
    (*last_whole)[ri].add(e);
    if (is_attention_block(e)) {
      if (last_attn == nullptr) {
        last_attn = &t.attn[key];
        if (last_attn->empty()) last_attn->resize(nr);
      }
      (*last_attn)[ri].add(e);
    }
    if (e.kind == TaskKind::AttentionForward) t.flops[0] += e.flops;
    if (e.kind == TaskKind::AttentionBackward) t.flops[1] += e.flops;
    t.t0 = std::min(t.t0, e.start_s);
    t.t1 = std::max(t.t1, e.end_s);
    t.rank_end[ri] = std::max(t.rank_end[ri], e.end_s);
    has_layer[static_cast<std::size_t>(e.layer + 32768)] = true;
    if (e.kind == TaskKind::Gemm || e.stream == Stream::NcclTp) r.whole_layer = true;
    (e.pass == Pass::Forward ? r.has_forward : r.has_backward) = true;
    classify_bytes(e, v.peers(i), r.gpus_per_node, r.bytes_intra_node, r.bytes_inter_node);
  }
  for (std::size_t l = 0; l < has_layer.size(); ++l)
    if (has_layer[l]) t.layers.insert(static_cast<int>(l) - 32768);
  return t;
}

// Critical path into `r`, and the exposed communication on it per (layer, pass).
template <class View>
std::map<std::pair<int, int>, double> path_and_exposed(const View& v, const std::vector<PathStep>& path,
                                                       const RankIndex& ranks,
                                                       const std::vector<IntervalUnion>& compute, double t0,
                                                       Report& r) {
  r.critical_path = critical_path_entries(v, path);
  std::map<std::pair<int, int>, double> exposed;
  double prev_end = t0;
  for (std::size_t k = 0; k < path.size(); ++k) {
    const CriticalPathEntry& c = r.critical_path[k];
    const double len = c.end_s - c.start_s;
    r.critical_path_idle_s += std::max(0.0, c.start_s - prev_end);
    prev_end = c.end_s;
    if (!is_communication(c.kind)) {
      r.critical_path_compute_s += len;
      continue;
    }
    r.critical_path_comm_s += len;
    const EventFacts e = v.at(path[k].index);
    if (!is_attention_block(e)) continue;
    const double cover = compute[ranks.index(c.rank)].covered(c.start_s, c.end_s);
    exposed[{e.layer, static_cast<int>(e.pass)}] += len - cover;
  }
  return exposed;
}

// The slowest rank's most exposed communication task, "name (peers a b c d ...)"; empty when none.
template <class View>
std::string slowest_rank_wait(const View& v, const EventsByRank& grouped, std::size_t slowest,
                              const IntervalUnion& compute) {
  const std::size_t n = v.size();
  double worst = -1;
  std::size_t worst_index = n;
  for (std::uint32_t k = grouped.first[slowest]; k < grouped.first[slowest + 1]; ++k) {   // in event order
    const std::size_t i = grouped.index[k];
    const EventFacts e = v.at(i);
    if (!is_communication(e.kind)) continue;
    const double cover = compute.covered(e.start_s, e.end_s);
    const double x = (e.end_s - e.start_s) - cover;
    if (x > worst + 1e-15) {
      worst = x;
      worst_index = i;
    }
  }
  if (worst_index >= n) return {};
  std::string wait = v.name(worst_index);
  const auto peers = v.peers(worst_index);
  if (!peers.empty()) {
    wait += " (peers";
    for (std::size_t i = 0; i < peers.size() && i < 4; ++i) {
      wait += ' ';
      wait += std::to_string(peers[i]);
    }
    if (peers.size() > 4) wait += " ...";
    wait += ")";
  }
  return wait;
}

// Per-layer times and their means per pass, attention TFLOP/s per GPU.
void fill_layer_times(EventTotals& t, std::map<std::pair<int, int>, double>& exposed, const RankIndex& ranks,
                      Report& r) {
  double sum[2] = {0, 0}, sum_layer[2] = {0, 0}, sum_exposed[2] = {0, 0};
  int count[2] = {0, 0};
  for (const int l : t.layers) {
    LayerTimes lt;
    lt.layer = l;
    for (const int p : {0, 1}) {
      const auto key = std::make_pair(l, p);
      if (!t.whole.count(key)) continue;
      const auto [a, ar] = slowest_span(t.attn[key], ranks);
      const auto [w, wr] = slowest_span(t.whole[key], ranks);
      const double x = exposed.count(key) ? exposed[key] : 0.0;
      (p == 0 ? lt.attention_forward_s : lt.attention_backward_s) = a;
      (p == 0 ? lt.layer_forward_s : lt.layer_backward_s) = w;
      (p == 0 ? lt.exposed_comm_forward_s : lt.exposed_comm_backward_s) = x;
      (p == 0 ? lt.slowest_rank_forward : lt.slowest_rank_backward) = ar;
      sum[p] += a;
      sum_layer[p] += w;
      sum_exposed[p] += x;
      ++count[p];
    }
    r.layers.push_back(lt);
  }
  for (const int p : {0, 1}) {
    if (count[p] == 0) continue;
    (p == 0 ? r.attention_forward_s : r.attention_backward_s) = sum[p] / count[p];
    (p == 0 ? r.layer_forward_s : r.layer_backward_s) = sum_layer[p] / count[p];
    (p == 0 ? r.exposed_comm_forward_s : r.exposed_comm_backward_s) = sum_exposed[p] / count[p];
    if (sum[p] > 0)
      (p == 0 ? r.attention_forward_tflops_per_gpu : r.attention_backward_tflops_per_gpu) =
          t.flops[p] / (static_cast<double>(r.world_size) * sum[p]) / 1e12;
  }
}

// compute_report over a view of type View (EventView, or GraphEventView whose calls are not virtual).
template <class View>
Report report_of(const View& v, const Trace& header, const ReportOptions& options) {
  Report r;
  r.scenario = header.scenario;
  r.backend = header.backend;
  r.world_size = header.world_size;
  r.gpus_per_node = header.gpus_per_node > 0 ? header.gpus_per_node : 8;
  r.tasks = v.size();
  r.wall_s = options.wall_s;
  const std::size_t n = v.size();
  if (n == 0) return r;
  RankedEvents x = rank_events(v);
  const RankIndex& ranks = x.ranks;
  const std::size_t nr = ranks.size();
  BusyUnions<View> busy(v, x);
  // On a large run a second thread computes the critical path, then shares the busy unions with
  // this one, which first makes the pass over the events below (the view's const methods are
  // thread-safe; each union is one rank's, whoever computes it).
  constexpr std::size_t kParallelFrom_events = 100000;
  std::future<std::vector<PathStep>> path_future;
  if (n >= kParallelFrom_events)
    path_future = std::async(std::launch::async, [&] {
      std::vector<PathStep> path = critical_path_steps(v, ranks, x.slot_of, x.grouped);
      busy.build();
      return path;
    });
  EventTotals t = total_events(v, x, r);
  // This thread's share of the unions, then the path (which waits for the other thread's share).
  busy.build();
  const std::vector<PathStep> path =
      path_future.valid() ? path_future.get() : critical_path_steps(v, ranks, x.slot_of, x.grouped);
  std::vector<std::uint8_t>().swap(x.lane_of);
  if (r.world_size == 0) r.world_size = ranks.rank(nr - 1) + 1;
  // A rank without communication (or compute) has an empty union: adding its 0 changes no sum.
  double hidden = 0;
  for (std::size_t ri = 0; ri < nr; ++ri) {
    r.comm_busy_s += busy.comm[ri].length();
    hidden += busy.comm[ri].intersection(busy.compute[ri]);
  }
  for (const auto& u : busy.compute) r.compute_busy_s += u.length();
  r.overlap_fraction = r.comm_busy_s > 0 ? hidden / r.comm_busy_s : 0.0;
  r.makespan_s = t.t1 - t.t0;
  r.layers_simulated = static_cast<int>(t.layers.size());
  r.num_layers = options.num_layers > 0 ? options.num_layers : r.layers_simulated;
  r.step_s = r.makespan_s * r.num_layers / std::max(1, r.layers_simulated);
  std::size_t slowest = 0;
  for (std::size_t ri = 1; ri < nr; ++ri)
    if (t.rank_end[ri] > t.rank_end[slowest]) slowest = ri;
  r.slowest_rank = ranks.rank(slowest);
  std::map<std::pair<int, int>, double> exposed = path_and_exposed(v, path, ranks, busy.compute, t.t0, r);
  r.slowest_rank_wait = slowest_rank_wait(v, x.grouped, slowest, busy.compute[slowest]);
  fill_layer_times(t, exposed, ranks, r);
  return r;
}

}  // namespace

Report compute_report(const Trace& t, const ReportOptions& options) {
  const TraceEventView view(t);
  return compute_report(view, t, options);
}

Report compute_report(const EventView& v, const Trace& header, const ReportOptions& options) {
  if (const auto* g = dynamic_cast<const GraphEventView*>(&v)) return report_of(*g, header, options);
  return report_of(v, header, options);
}

}  // namespace hcpsim
