#include "engine/accuracy/accuracy_writers.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace hcpsim::accuracy {

namespace {

std::string fixed(double v, int precision) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  return buf;
}

// Four significant digits, without an exponent for the magnitudes metrics take.
std::string value(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string signed_percent(double e) { return (e >= 0 ? "+" : "") + fixed(e * 100, 1) + " %"; }

std::string pad(const std::string& s, std::size_t w, bool right = false) {
  if (s.size() >= w) return s;
  return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

nlohmann::ordered_json summary_json(const RoleSummary& s) {
  nlohmann::ordered_json j;
  j["count"] = s.count;
  if (s.count == 0) {
    j["mean_abs_error"] = nullptr;
    j["max_abs_error"] = nullptr;
    j["worst_case"] = nullptr;
  } else {
    j["mean_abs_error"] = s.mean_abs_error;
    j["max_abs_error"] = s.max_abs_error;
    j["worst_case"] = s.worst_case;
  }
  return j;
}

std::string summary_text(const char* role, const RoleSummary& s) {
  if (s.count == 0) return std::string(role) + ": no cases\n";
  return std::string(role) + ": " + std::to_string(s.count) + " case" + (s.count == 1 ? "" : "s") +
         ", mean |error| " + fixed(s.mean_abs_error * 100, 1) + " %, max |error| " + fixed(s.max_abs_error * 100, 1) +
         " % (" + s.worst_case + ")\n";
}

// Names in predicted order, "=" between equal predictions (a tie does not reproduce a measured order).
std::string predicted_order_text(const AccuracyReport& r, const GroupOrder& g) {
  std::map<std::string, double> predicted;
  for (const auto& c : r.cases) predicted[c.source->name] = c.predicted;
  std::string out;
  for (std::size_t i = 0; i < g.predicted_order.size(); ++i) {
    if (i > 0) out += predicted[g.predicted_order[i]] == predicted[g.predicted_order[i - 1]] ? " = " : " < ";
    out += g.predicted_order[i];
  }
  return out;
}

// One line per class and level: fit and holdout counts, holdout mean and max |error|, and the range of
// the holdout cases' time errors (the class's error band, error_band.h).
std::string classes_text(const AccuracyReport& r) {
  if (r.classes.empty()) return "";
  std::size_t w = 5;
  for (const auto& c : r.classes) w = std::max(w, c.name.size());
  std::ostringstream os;
  os << "\nby class (level/precision; holdout: mean and max |error|, measured/predicted time - 1 range):\n";
  for (const auto& c : r.classes) {
    os << "  " << pad(c.name, w) << "  fit " << pad(std::to_string(c.fit.count), 3, true) << ", holdout "
       << pad(std::to_string(c.holdout.count), 3, true);
    if (c.holdout.count > 0)
      os << ": mean " << fixed(c.holdout.mean_abs_error * 100, 1) << " %, max " << fixed(c.holdout.max_abs_error * 100, 1)
         << " %, band " << signed_percent(c.holdout_low_fraction) << " .. " << signed_percent(c.holdout_high_fraction);
    os << '\n';
  }
  return os.str();
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

}  // namespace

std::string accuracy_to_text(const AccuracyReport& r, const AccuracyBounds& bounds,
                             const std::vector<std::string>& violations) {
  std::ostringstream os;
  std::size_t wn = 4, wm = 6;
  for (const auto& c : r.cases) {
    wn = std::max(wn, c.source->name.size());
    wm = std::max(wm, c.source->metric.size());
  }
  os << pad("case", wn) << "  " << pad("role", 7) << "  " << pad("metric", wm) << "  " << pad("measured", 10, true)
     << "  " << pad("predicted", 10, true) << "  " << pad("error", 9, true) << '\n';
  for (const auto& c : r.cases)
    os << pad(c.source->name, wn) << "  " << pad(to_string(c.source->role), 7) << "  " << pad(c.source->metric, wm)
       << "  " << pad(value(c.measured), 10, true) << "  " << pad(value(c.predicted), 10, true) << "  "
       << pad(signed_percent(c.error), 9, true) << '\n';
  os << '\n' << summary_text("fit", r.fit) << summary_text("holdout", r.holdout) << classes_text(r);
  if (!r.groups.empty()) {
    os << "\norder check (measured order, smallest first; predicted order when it differs):\n";
    for (const auto& g : r.groups) {
      os << "  " << g.name << " (" << g.metric << "): " << (g.matches ? "ok" : "MISMATCH") << "  "
         << join(g.measured_order, " < ") << '\n';
      if (!g.matches)
        os << "    predicted: " << predicted_order_text(r, g) << "  (" << g.discordant_pairs
           << " pair(s) out of order)\n";
    }
  }
  if (bounds.max_mean_error || bounds.max_error || bounds.require_order) {
    os << '\n' << (violations.empty() ? "bounds met" : "bounds NOT met") << ':';
    if (bounds.max_mean_error) os << " holdout mean |error| <= " << fixed(*bounds.max_mean_error * 100, 1) << " %";
    if (bounds.max_error) os << (bounds.max_mean_error ? "," : "") << " each holdout |error| <= "
                             << fixed(*bounds.max_error * 100, 1) << " %";
    if (bounds.require_order) os << ((bounds.max_mean_error || bounds.max_error) ? "," : "") << " every group in order";
    os << '\n';
    for (const auto& v : violations) os << "  " << v << '\n';
  }
  return os.str();
}

std::string accuracy_to_json(const AccuracyReport& r, const AccuracyBounds& bounds,
                             const std::vector<std::string>& violations) {
  nlohmann::ordered_json j;
  j["cases"] = nlohmann::ordered_json::array();
  for (const auto& c : r.cases) {
    const AccuracyCase& s = *c.source;
    nlohmann::ordered_json e;
    e["name"] = s.name;
    e["role"] = to_string(s.role);
    e["metric"] = s.metric;
    e["measured"] = c.measured;
    e["predicted"] = c.predicted;
    e["error"] = c.error;
    e["kind"] = to_string(s.kind);
    e["file"] = s.file;
    e["backend"] = s.backend;
    e["group"] = s.group.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.group);
    e["case_class"] = c.case_class.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.case_class);
    e["source"] = {{"citation", s.citation}, {"where", s.where}};
    if (!s.url.empty()) e["source"]["url"] = s.url;
    j["cases"].push_back(std::move(e));
  }
  j["fit"] = summary_json(r.fit);
  j["holdout"] = summary_json(r.holdout);
  j["classes"] = nlohmann::ordered_json::array();
  for (const auto& c : r.classes) {
    nlohmann::ordered_json e;
    e["name"] = c.name;
    e["fit"] = summary_json(c.fit);
    e["holdout"] = summary_json(c.holdout);
    const bool any = c.holdout.count > 0;
    e["holdout"]["band_low_fraction"] = any ? nlohmann::ordered_json(c.holdout_low_fraction) : nlohmann::ordered_json(nullptr);
    e["holdout"]["band_high_fraction"] = any ? nlohmann::ordered_json(c.holdout_high_fraction) : nlohmann::ordered_json(nullptr);
    j["classes"].push_back(std::move(e));
  }
  j["groups"] = nlohmann::ordered_json::array();
  for (const auto& g : r.groups)
    j["groups"].push_back({{"name", g.name},
                           {"metric", g.metric},
                           {"order_matches", g.matches},
                           {"discordant_pairs", g.discordant_pairs},
                           {"measured_order", g.measured_order},
                           {"predicted_order", g.predicted_order}});
  nlohmann::ordered_json b;
  b["max_mean_error"] = bounds.max_mean_error ? nlohmann::ordered_json(*bounds.max_mean_error) : nlohmann::ordered_json(nullptr);
  b["max_error"] = bounds.max_error ? nlohmann::ordered_json(*bounds.max_error) : nlohmann::ordered_json(nullptr);
  b["require_order"] = bounds.require_order;
  b["met"] = violations.empty();
  b["violations"] = violations;
  j["bounds"] = std::move(b);
  return j.dump(2) + "\n";
}

}  // namespace hcpsim::accuracy
