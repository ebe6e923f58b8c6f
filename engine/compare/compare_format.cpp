#include "engine/compare/compare_format.h"

#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace hcpsim {
namespace {

nlohmann::json stats_json(const ErrorStats& s) {
  return {{"count", s.count},
          {"mean_rel_error", s.mean_rel_error},
          {"mean_abs_rel_error", s.mean_abs_rel_error},
          {"max_rel_error", s.max_rel_error},
          {"predicted_s", s.predicted_s},
          {"measured_s", s.measured_s}};
}

// NaN is not JSON: write null instead.
nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

std::string pct(double v) {
  std::ostringstream os;
  if (!std::isfinite(v)) return "n/a";
  os << std::showpos << std::fixed << std::setprecision(1) << v * 100.0 << '%';
  return os.str();
}

std::string secs(double v) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(1) << v * 1e6 << " us";
  return os.str();
}

void stats_table(std::ostream& os, const std::string& title,
                 const std::map<std::string, ErrorStats>& rows) {
  os << title << '\n';
  os << "  " << std::left << std::setw(20) << "group" << std::right << std::setw(7) << "count"
     << std::setw(11) << "mean" << std::setw(11) << "mean|e|" << std::setw(11) << "max"
     << std::setw(15) << "predicted" << std::setw(15) << "measured" << '\n';
  for (const auto& [k, s] : rows) {
    os << "  " << std::left << std::setw(20) << k << std::right << std::setw(7) << s.count
       << std::setw(11) << pct(s.mean_rel_error) << std::setw(11) << pct(s.mean_abs_rel_error)
       << std::setw(11) << pct(s.max_rel_error) << std::setw(15) << secs(s.predicted_s)
       << std::setw(15) << secs(s.measured_s) << '\n';
  }
}

void id_list(std::ostream& os, const std::string& title, const std::vector<TaskId>& ids,
             std::size_t max_listed) {
  if (ids.empty()) return;
  os << title << " (" << ids.size() << "):";
  for (std::size_t i = 0; i < ids.size() && i < max_listed; ++i) os << ' ' << ids[i];
  if (ids.size() > max_listed) os << " ... (" << ids.size() - max_listed << " more)";
  os << '\n';
}

}  // namespace

std::string compare_to_json(const CompareResult& r, int indent) {
  nlohmann::json j;
  j["matched"] = r.matched;
  j["clean"] = r.clean();
  j["overall"] = stats_json(r.overall);
  j["by_kind"] = nlohmann::json::object();
  for (const auto& [k, s] : r.by_kind) j["by_kind"][k] = stats_json(s);
  j["by_pass"] = nlohmann::json::object();
  for (const auto& [k, s] : r.by_pass) j["by_pass"][k] = stats_json(s);
  j["by_rank"] = nlohmann::json::object();
  for (const auto& [k, s] : r.by_rank) j["by_rank"][std::to_string(k)] = stats_json(s);
  j["spans"] = nlohmann::json::object();
  for (const auto& [k, s] : r.spans) {
    j["spans"][k] = {{"predicted_s", s.predicted_s},
                     {"measured_s", s.measured_s},
                     {"rel_error", number_or_null(s.rel_error)}};
  }
  j["worst"] = nlohmann::json::array();
  for (const auto& w : r.worst) {
    j["worst"].push_back({{"task", w.task},
                          {"rank", w.rank},
                          {"kind", to_string(w.kind)},
                          {"pass", to_string(w.pass)},
                          {"name", w.name},
                          {"predicted_s", w.predicted_s},
                          {"measured_s", w.measured_s},
                          {"rel_error", w.rel_error}});
  }
  j["missing_in_measured"] = r.missing_in_measured;
  j["missing_in_predicted"] = r.missing_in_predicted;
  j["duplicates"] = r.duplicates;
  j["mismatched"] = nlohmann::json::array();
  for (const auto& m : r.mismatched) j["mismatched"].push_back({{"task", m.task}, {"what", m.what}});
  j["too_short"] = r.too_short;
  return j.dump(indent);
}

void write_compare_text(const CompareResult& r, std::ostream& os, std::size_t max_listed) {
  os << "Relative error = (predicted - measured) / measured; + means the prediction is slower.\n";
  os << "matched tasks: " << r.matched << ", overall mean " << pct(r.overall.mean_rel_error)
     << ", mean |e| " << pct(r.overall.mean_abs_rel_error) << ", max " << pct(r.overall.max_rel_error)
     << '\n';
  os << '\n';
  stats_table(os, "By task kind:", r.by_kind);
  os << '\n';
  stats_table(os, "By pass:", r.by_pass);
  os << '\n';
  std::map<std::string, ErrorStats> ranks;
  for (const auto& [k, s] : r.by_rank) {
    std::ostringstream key;
    key << "rank " << std::setw(5) << k;   // padded so the map keeps numeric order
    ranks[key.str()] = s;
  }
  stats_table(os, "By rank:", ranks);
  if (!r.spans.empty()) {
    os << "\nPass spans (first start to last end, all ranks):\n";
    for (const auto& [k, s] : r.spans) {
      os << "  " << std::left << std::setw(10) << k << std::right << " predicted " << secs(s.predicted_s)
         << "  measured " << secs(s.measured_s) << "  error " << pct(s.rel_error) << '\n';
    }
  }
  if (!r.worst.empty()) {
    os << "\nLargest errors:\n";
    for (const auto& w : r.worst) {
      os << "  task " << std::setw(6) << w.task << "  rank " << std::setw(4) << w.rank << "  "
         << std::left << std::setw(19) << to_string(w.kind) << std::right << std::setw(10)
         << pct(w.rel_error) << "  predicted " << secs(w.predicted_s) << "  measured "
         << secs(w.measured_s) << "  " << w.name << '\n';
    }
  }
  if (!r.clean() || !r.too_short.empty()) os << '\n';
  id_list(os, "Tasks only in the predicted trace", r.missing_in_measured, max_listed);
  id_list(os, "Tasks only in the measured trace", r.missing_in_predicted, max_listed);
  id_list(os, "Task ids with more than one event", r.duplicates, max_listed);
  id_list(os, "Tasks with a measured duration too short to compare", r.too_short, max_listed);
  if (!r.mismatched.empty()) {
    os << "Tasks whose rank or kind differ (" << r.mismatched.size() << "):\n";
    for (std::size_t i = 0; i < r.mismatched.size() && i < max_listed; ++i) {
      os << "  task " << r.mismatched[i].task << ": " << r.mismatched[i].what << '\n';
    }
  }
}

}  // namespace hcpsim
