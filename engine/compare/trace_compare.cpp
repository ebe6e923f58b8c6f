#include "engine/compare/trace_compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace hcpsim {
namespace {

// Adds one error to running sums; finish() turns the sums into means.
struct Accumulator {
  ErrorStats s;
  double sum = 0;
  double sum_abs = 0;
  void add(double err, double pred_s, double meas_s) {
    ++s.count;
    sum += err;
    sum_abs += std::abs(err);
    if (s.count == 1 || std::abs(err) > std::abs(s.max_rel_error)) s.max_rel_error = err;
    s.predicted_s += pred_s;
    s.measured_s += meas_s;
  }
  ErrorStats finish() const {
    ErrorStats out = s;
    if (s.count > 0) {
      out.mean_rel_error = sum / static_cast<double>(s.count);
      out.mean_abs_rel_error = sum_abs / static_cast<double>(s.count);
    }
    return out;
  }
};

// Index of each task id's event; ids seen twice are recorded in `dups`.
std::unordered_map<TaskId, const TraceEvent*> index_events(const Trace& t, std::vector<TaskId>& dups) {
  std::unordered_map<TaskId, const TraceEvent*> idx;
  idx.reserve(t.events.size());
  for (const auto& e : t.events) {
    auto [it, inserted] = idx.emplace(e.task, &e);
    if (!inserted) dups.push_back(e.task);
  }
  return idx;
}

// Span per pass: first start to last end over all events of that pass.
std::map<std::string, std::pair<double, double>> pass_spans(const Trace& t) {
  std::map<std::string, std::pair<double, double>> out;
  for (const auto& e : t.events) {
    auto key = std::string(to_string(e.pass));
    auto it = out.find(key);
    if (it == out.end()) {
      out.emplace(key, std::make_pair(e.start_s, e.end_s));
    } else {
      it->second.first = std::min(it->second.first, e.start_s);
      it->second.second = std::max(it->second.second, e.end_s);
    }
  }
  return out;
}

void sort_unique(std::vector<TaskId>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

CompareResult compare_traces(const Trace& predicted, const Trace& measured,
                             const CompareOptions& options) {
  if (!(options.min_measured_s >= 0)) {
    throw std::invalid_argument("compare: min_measured_s must be >= 0");
  }
  CompareResult r;
  auto pred = index_events(predicted, r.duplicates);
  auto meas = index_events(measured, r.duplicates);
  sort_unique(r.duplicates);

  Accumulator overall;
  std::map<std::string, Accumulator> by_kind, by_pass;
  std::map<int, Accumulator> by_rank;
  std::vector<TaskError> all;

  // Walk predicted events in trace order so the result does not depend on hashing.
  for (const auto& pe : predicted.events) {
    if (pred.at(pe.task) != &pe) continue;   // a duplicate: only the first event counts
    auto mit = meas.find(pe.task);
    if (mit == meas.end()) {
      r.missing_in_measured.push_back(pe.task);
      continue;
    }
    const TraceEvent& me = *mit->second;
    if (me.rank != pe.rank || me.kind != pe.kind) {
      std::string what;
      if (me.rank != pe.rank) what += "rank " + std::to_string(pe.rank) + " vs " + std::to_string(me.rank);
      if (me.kind != pe.kind) {
        if (!what.empty()) what += ", ";
        what += std::string("kind ") + to_string(pe.kind) + " vs " + to_string(me.kind);
      }
      r.mismatched.push_back({pe.task, what});
      continue;
    }
    const double p_s = pe.end_s - pe.start_s;
    const double m_s = me.end_s - me.start_s;
    if (!(m_s >= options.min_measured_s) || m_s <= 0) {
      r.too_short.push_back(pe.task);
      continue;
    }
    const double err = (p_s - m_s) / m_s;
    overall.add(err, p_s, m_s);
    by_kind[to_string(pe.kind)].add(err, p_s, m_s);
    by_pass[to_string(pe.pass)].add(err, p_s, m_s);
    by_rank[pe.rank].add(err, p_s, m_s);
    all.push_back({pe.task, pe.rank, pe.kind, pe.pass, pe.name, p_s, m_s, err});
  }
  for (const auto& me : measured.events) {
    if (!pred.count(me.task)) r.missing_in_predicted.push_back(me.task);
  }
  sort_unique(r.missing_in_predicted);

  r.matched = all.size();
  r.overall = overall.finish();
  for (auto& [k, a] : by_kind) r.by_kind[k] = a.finish();
  for (auto& [k, a] : by_pass) r.by_pass[k] = a.finish();
  for (auto& [k, a] : by_rank) r.by_rank[k] = a.finish();

  auto ps = pass_spans(predicted);
  auto ms = pass_spans(measured);
  for (const auto& [k, p] : ps) {
    auto it = ms.find(k);
    if (it == ms.end()) continue;
    PassSpan sp;
    sp.predicted_s = p.second - p.first;
    sp.measured_s = it->second.second - it->second.first;
    sp.rel_error = sp.measured_s > 0 ? (sp.predicted_s - sp.measured_s) / sp.measured_s
                                     : std::numeric_limits<double>::quiet_NaN();
    r.spans[k] = sp;
  }

  std::stable_sort(all.begin(), all.end(), [](const TaskError& a, const TaskError& b) {
    return std::abs(a.rel_error) > std::abs(b.rel_error);
  });
  if (all.size() > options.worst_count) all.resize(options.worst_count);
  r.worst = std::move(all);
  return r;
}

}  // namespace hcpsim
