#include "engine/compare/measured_compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

namespace hcpsim {
namespace {

using Intervals = std::vector<std::pair<double, double>>;

// Sorted, merged copy of `v`; returns the covered length in `length`.
Intervals merge(Intervals v, double& length) {
  std::sort(v.begin(), v.end());
  Intervals out;
  for (const auto& x : v) {
    if (!out.empty() && x.first <= out.back().second) out.back().second = std::max(out.back().second, x.second);
    else out.push_back(x);
  }
  length = 0;
  for (const auto& x : out) length += x.second - x.first;
  return out;
}

double overlap_length(const Intervals& a, const Intervals& b) {
  double sum = 0;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const double lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (hi > lo) sum += hi - lo;
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return sum;
}

// Collects the kernels of one rank and step, then reduces them to BusyFigures.
struct BusyBuilder {
  Intervals compute, comm;
  double first = std::numeric_limits<double>::infinity(), last = -std::numeric_limits<double>::infinity();
  void add(double s, double e, bool communication) {
    (communication ? comm : compute).emplace_back(s, e);
    first = std::min(first, s);
    last = std::max(last, e);
  }
  BusyFigures finish() const {
    BusyFigures f;
    if (!(last > first)) return f;
    f.step_s = last - first;
    const Intervals a = merge(compute, f.compute_s), b = merge(comm, f.communication_s);
    f.exposed_communication_s = f.communication_s - overlap_length(a, b);
    return f;
  }
};

void add_scaled(BusyFigures& to, const BusyFigures& f, double w) {
  to.step_s += f.step_s * w;
  to.compute_s += f.compute_s * w;
  to.communication_s += f.communication_s * w;
  to.exposed_communication_s += f.exposed_communication_s * w;
}

void measured_side(const MeasuredRun& run, const std::set<int>& common, MeasuredCompareResult& r,
                   std::map<std::string, NamedCount>& other) {
  for (const auto& mr : run.ranks) {
    r.measured_steps = std::max(r.measured_steps, mr.steps);
    r.measured_kernels += mr.kernels.size();
    const int steps = std::max(1, mr.steps);
    const double w = 1.0 / steps;
    std::vector<BusyBuilder> per_step(static_cast<std::size_t>(steps));
    for (const auto& k : mr.kernels) {
      if (mr.steps > 0 && k.step < 0) {
        ++r.outside_steps;
        continue;
      }
      const double d = k.end_s - k.start_s;
      per_step[static_cast<std::size_t>(mr.steps > 0 ? k.step : 0)].add(k.start_s, k.end_s, is_communication(k.kind));
      auto& byr = r.by_rank[mr.rank];
      byr.measured_s += d * w;
      byr.measured_count += w;
      if (!common.count(mr.rank)) continue;
      const double wc = w / static_cast<double>(common.size());
      auto& bk = r.by_kind[to_string(k.kind)];
      bk.measured_s += d * wc;
      bk.measured_count += wc;
      auto& bp = r.by_kind_pass[{to_string(k.kind), to_string(k.pass)}];
      bp.measured_s += d * wc;
      bp.measured_count += wc;
      if (k.kind == MeasuredKind::Other) {
        auto& o = other[run.names[k.name]];
        o.count += wc;
        o.time_s += d * wc;
      }
    }
    auto& rf = r.ranks[mr.rank];
    rf.in_measured = true;
    for (const auto& b : per_step) add_scaled(rf.measured, b.finish(), w);
  }
}

void predicted_side(const Trace& t, const std::set<int>& common, MeasuredCompareResult& r) {
  std::map<int, BusyBuilder> busy;
  for (const auto& e : t.events) {
    const double d = e.end_s - e.start_s;
    busy[e.rank].add(e.start_s, e.end_s, is_communication(e.kind));
    auto& byr = r.by_rank[e.rank];
    byr.predicted_s += d;
    byr.predicted_count += 1;
    if (!common.count(e.rank)) continue;
    const double wc = 1.0 / static_cast<double>(common.size());
    const std::string kind = to_string(measured_kind_of(e.kind));
    auto& bk = r.by_kind[kind];
    bk.predicted_s += d * wc;
    bk.predicted_count += wc;
    auto& bp = r.by_kind_pass[{kind, to_string(e.pass)}];
    bp.predicted_s += d * wc;
    bp.predicted_count += wc;
  }
  for (const auto& [rank, b] : busy) {
    auto& rf = r.ranks[rank];
    rf.in_predicted = true;
    rf.predicted = b.finish();
  }
}

int slowest(const std::map<int, RankFigures>& ranks, bool predicted) {
  int best = -1;
  double worst = -1;
  for (const auto& [rank, f] : ranks) {
    if (!(predicted ? f.in_predicted : f.in_measured)) continue;
    const double s = predicted ? f.predicted.step_s : f.measured.step_s;
    if (s > worst) { worst = s; best = rank; }
  }
  return best;
}

// One note listing the ranks of `a` missing from `b` (at most 16 named).
void rank_note(std::vector<std::string>& notes, const char* what, const std::set<int>& a, const std::set<int>& b) {
  std::string list;
  int n = 0;
  for (int rank : a) {
    if (b.count(rank)) continue;
    if (++n <= 16) list += " " + std::to_string(rank);
  }
  if (n == 0) return;
  if (n > 16) list += " ...";
  notes.push_back(std::to_string(n) + " ranks " + what + ":" + list);
}

}  // namespace

double BusyFigures::overlap() const {
  return communication_s > 0 ? 1.0 - exposed_communication_s / communication_s : std::numeric_limits<double>::quiet_NaN();
}

MeasuredCompareResult compare_with_measured(const Trace& predicted, const MeasuredRun& measured) {
  MeasuredCompareResult r;
  std::set<int> pred_ranks, meas_ranks, common;
  for (const auto& e : predicted.events) pred_ranks.insert(e.rank);
  for (const auto& m : measured.ranks) meas_ranks.insert(m.rank);
  std::set_intersection(pred_ranks.begin(), pred_ranks.end(), meas_ranks.begin(), meas_ranks.end(),
                        std::inserter(common, common.end()));
  if (common.empty()) r.notes.push_back("no rank is in both the prediction and the measured run: kinds are not compared");
  std::map<std::string, NamedCount> other;
  measured_side(measured, common, r, other);
  predicted_side(predicted, common, r);
  r.slowest_predicted = slowest(r.ranks, true);
  r.slowest_measured = slowest(r.ranks, false);
  for (auto& [name, c] : other) r.unmatched.push_back({name, c.count, c.time_s});
  std::sort(r.unmatched.begin(), r.unmatched.end(), [](const auto& a, const auto& b) { return a.time_s > b.time_s; });
  if (measured.ranks.size() > 0 && r.measured_steps == 0)
    r.notes.push_back("the measured run has no step ranges (ProfilerStep#N or NVTX \"step N\"): the whole trace is one step");
  if (r.outside_steps > 0)
    r.notes.push_back(std::to_string(r.outside_steps) + " measured kernels lie outside every step range and are left out");
  std::string counts;
  for (const auto& [kind, f] : r.by_kind) {
    if (f.predicted_count > 0 && f.measured_count > 0 && std::abs(f.predicted_count - f.measured_count) > 1e-9 * f.measured_count) {
      std::ostringstream os;
      os << ' ' << kind << ' ' << f.measured_count << '/' << f.predicted_count;
      counts += os.str();
    }
  }
  if (!counts.empty())
    r.notes.push_back("kernels per step and rank, measured/predicted:" + counts +
                      " (the prediction may simulate fewer layers or micro-batches than the run: compare the per-kernel columns)");
  rank_note(r.notes, "predicted but not measured", pred_ranks, meas_ranks);
  rank_note(r.notes, "measured but not predicted", meas_ranks, pred_ranks);
  r.notes.insert(r.notes.end(), measured.notes.begin(), measured.notes.end());
  return r;
}

}  // namespace hcpsim
