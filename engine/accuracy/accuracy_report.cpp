#include "engine/accuracy/accuracy_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace hcpsim::accuracy {

namespace {

// `in_class`: "" for every case, else a class name or a level (every class of that level).
bool belongs(const CaseResult& r, const std::string& in_class) {
  if (in_class.empty()) return true;
  return r.case_class == in_class || (r.case_class.rfind(in_class + "/", 0) == 0);
}

RoleSummary summarize(const std::vector<CaseResult>& results, CaseRole role, const std::string& in_class = "") {
  RoleSummary s;
  double sum = 0;
  for (const auto& r : results) {
    if (r.source->role != role || !belongs(r, in_class)) continue;
    const double a = std::abs(r.error);
    ++s.count;
    sum += a;
    if (s.count == 1 || a > s.max_abs_error) {
      s.max_abs_error = a;
      s.worst_case = r.source->name;
    }
  }
  if (s.count > 0) s.mean_abs_error = sum / static_cast<double>(s.count);
  return s;
}

ClassSummary class_summary(const std::vector<CaseResult>& results, const std::string& name) {
  ClassSummary c;
  c.name = name;
  c.fit = summarize(results, CaseRole::Fit, name);
  c.holdout = summarize(results, CaseRole::Holdout, name);
  bool first = true;
  for (const auto& r : results) {
    if (r.source->role != CaseRole::Holdout || !belongs(r, name)) continue;
    c.holdout_low_fraction = first ? r.time_fraction : std::min(c.holdout_low_fraction, r.time_fraction);
    c.holdout_high_fraction = first ? r.time_fraction : std::max(c.holdout_high_fraction, r.time_fraction);
    first = false;
  }
  return c;
}

std::vector<std::string> names_sorted_by(std::vector<const CaseResult*> v, bool predicted) {
  std::stable_sort(v.begin(), v.end(), [&](const CaseResult* a, const CaseResult* b) {
    return predicted ? a->predicted < b->predicted : a->measured < b->measured;
  });
  std::vector<std::string> out;
  for (const auto* r : v) out.push_back(r->source->name);
  return out;
}

GroupOrder order_of(const std::string& name, const std::vector<const CaseResult*>& members) {
  GroupOrder g;
  g.name = name;
  g.metric = members.front()->source->metric;
  g.measured_order = names_sorted_by(members, false);
  g.predicted_order = names_sorted_by(members, true);
  // Every pair whose measured values differ must be ordered the same way by the prediction.
  for (std::size_t i = 0; i < members.size(); ++i)
    for (std::size_t j = i + 1; j < members.size(); ++j) {
      const double dm = members[i]->measured - members[j]->measured;
      const double dp = members[i]->predicted - members[j]->predicted;
      if (dm != 0 && !(dm * dp > 0)) ++g.discordant_pairs;
    }
  g.matches = g.discordant_pairs == 0;
  return g;
}

std::string percent(double x) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(1);
  os << x * 100 << " %";
  return os.str();
}

}  // namespace

double signed_error(double predicted, double measured) { return predicted / measured - 1.0; }

AccuracyReport make_accuracy_report(std::vector<CaseResult> results) {
  AccuracyReport r;
  for (auto& c : results) {
    c.error = signed_error(c.predicted, c.measured);
    c.time_fraction = higher_is_better(c.source->metric) ? c.error : c.measured / c.predicted - 1.0;
  }
  r.cases = std::move(results);
  r.fit = summarize(r.cases, CaseRole::Fit);
  r.holdout = summarize(r.cases, CaseRole::Holdout);
  std::map<std::string, std::vector<const CaseResult*>> groups;
  for (const auto& c : r.cases)
    if (!c.source->group.empty()) groups[c.source->group].push_back(&c);
  for (const auto& [name, members] : groups) r.groups.push_back(order_of(name, members));
  std::set<std::string> classes;
  for (const auto& c : r.cases)
    if (!c.case_class.empty()) {
      classes.insert(c.case_class);
      classes.insert(c.case_class.substr(0, c.case_class.find('/')));
    }
  for (const auto& name : classes) r.classes.push_back(class_summary(r.cases, name));
  return r;
}

std::vector<std::string> bound_violations(const AccuracyReport& r, const AccuracyBounds& b) {
  std::vector<std::string> out;
  if ((b.max_mean_error || b.max_error) && r.holdout.count == 0)
    out.push_back("no holdout case was run, so the error bounds cannot be checked");
  if (b.max_mean_error && r.holdout.count > 0 && r.holdout.mean_abs_error > *b.max_mean_error)
    out.push_back("holdout mean absolute error " + percent(r.holdout.mean_abs_error) + " exceeds --max-mean-error " +
                  percent(*b.max_mean_error));
  if (b.max_error)
    for (const auto& c : r.cases)
      if (c.source->role == CaseRole::Holdout && std::abs(c.error) > *b.max_error)
        out.push_back("holdout case " + c.source->name + ": error " + percent(c.error) + " exceeds --max-error " +
                      percent(*b.max_error));
  if (b.require_order)
    for (const auto& g : r.groups)
      if (!g.matches)
        out.push_back("group " + g.name + ": the predicted order differs from the measured order (" +
                      std::to_string(g.discordant_pairs) + " pair(s) out of order)");
  return out;
}

}  // namespace hcpsim::accuracy
