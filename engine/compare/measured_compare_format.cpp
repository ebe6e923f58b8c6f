// Text and JSON of a MeasuredCompareResult (`hcpsim compare PREDICTED PROFILER-TRACE...`).
#include <cmath>
#include <iomanip>
#include <limits>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/compare/measured_compare.h"

namespace hcpsim {
namespace {

double rel_error(double predicted, double measured) {
  return measured > 0 ? (predicted - measured) / measured : std::numeric_limits<double>::quiet_NaN();
}

nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json kind_json(const KindFigures& f) {
  return {{"predicted_s", f.predicted_s},
          {"measured_s", f.measured_s},
          {"predicted_count", f.predicted_count},
          {"measured_count", f.measured_count},
          {"rel_error", num(rel_error(f.predicted_s, f.measured_s))},
          {"predicted_mean_kernel_s", f.predicted_mean_s()},
          {"measured_mean_kernel_s", f.measured_mean_s()},
          {"mean_kernel_rel_error", num(rel_error(f.predicted_mean_s(), f.measured_mean_s()))}};
}

nlohmann::json busy_json(const BusyFigures& b) {
  return {{"step_s", b.step_s},
          {"compute_s", b.compute_s},
          {"communication_s", b.communication_s},
          {"exposed_communication_s", b.exposed_communication_s},
          {"overlap", num(b.overlap())}};
}

std::string pct(double v) {
  if (!std::isfinite(v)) return "n/a";
  std::ostringstream os;
  os << std::showpos << std::fixed << std::setprecision(1) << v * 100.0 << '%';
  return os.str();
}

std::string us(double s) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(1) << s * 1e6;
  return os.str();
}

std::string count(double c) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(c == std::floor(c) ? 0 : 1) << c;
  return os.str();
}

void kind_row(std::ostream& os, const std::string& label, const KindFigures& f) {
  os << "  " << std::left << std::setw(30) << label << std::right << std::setw(9) << count(f.predicted_count)
     << std::setw(9) << count(f.measured_count) << std::setw(13) << us(f.predicted_s) << std::setw(13) << us(f.measured_s)
     << std::setw(9) << pct(rel_error(f.predicted_s, f.measured_s)) << std::setw(11) << us(f.predicted_mean_s())
     << std::setw(11) << us(f.measured_mean_s()) << std::setw(9) << pct(rel_error(f.predicted_mean_s(), f.measured_mean_s()))
     << '\n';
}

void kind_header(std::ostream& os, const char* title) {
  os << title << '\n'
     << "  " << std::left << std::setw(30) << "group" << std::right << std::setw(9) << "n pred" << std::setw(9) << "n meas"
     << std::setw(13) << "pred us" << std::setw(13) << "meas us" << std::setw(9) << "error" << std::setw(11)
     << "pred/kern" << std::setw(11) << "meas/kern" << std::setw(9) << "error" << '\n';
}

void busy_row(std::ostream& os, const std::string& label, const BusyFigures& b) {
  std::ostringstream ov;
  if (std::isfinite(b.overlap())) ov << std::fixed << std::setprecision(0) << b.overlap() * 100 << '%';
  else ov << "n/a";
  os << "  " << std::left << std::setw(22) << label << std::right << std::setw(13) << us(b.step_s) << std::setw(13)
     << us(b.compute_s) << std::setw(13) << us(b.communication_s) << std::setw(13) << us(b.exposed_communication_s)
     << std::setw(9) << ov.str() << '\n';
}

}  // namespace

std::string measured_compare_to_json(const MeasuredCompareResult& r, int indent) {
  nlohmann::json j;
  j["measured_steps"] = r.measured_steps;
  j["measured_kernels"] = r.measured_kernels;
  j["outside_steps"] = r.outside_steps;
  j["by_kind"] = nlohmann::json::object();
  for (const auto& [k, f] : r.by_kind) j["by_kind"][k] = kind_json(f);
  j["by_kind_pass"] = nlohmann::json::array();
  for (const auto& [k, f] : r.by_kind_pass) {
    auto row = kind_json(f);
    row["kind"] = k.first;
    row["pass"] = k.second;
    j["by_kind_pass"].push_back(row);
  }
  j["by_rank"] = nlohmann::json::object();
  for (const auto& [k, f] : r.by_rank) j["by_rank"][std::to_string(k)] = kind_json(f);
  j["ranks"] = nlohmann::json::object();
  for (const auto& [k, f] : r.ranks) {
    auto& row = j["ranks"][std::to_string(k)];
    row["predicted"] = f.in_predicted ? busy_json(f.predicted) : nlohmann::json(nullptr);
    row["measured"] = f.in_measured ? busy_json(f.measured) : nlohmann::json(nullptr);
  }
  j["slowest_rank"] = {{"predicted", r.slowest_predicted}, {"measured", r.slowest_measured}};
  j["unmatched"] = nlohmann::json::array();
  for (const auto& u : r.unmatched) j["unmatched"].push_back({{"name", u.name}, {"count", u.count}, {"time_s", u.time_s}});
  j["notes"] = r.notes;
  return j.dump(indent);
}

void write_measured_compare_text(const MeasuredCompareResult& r, std::ostream& os, std::size_t max_listed) {
  os << "Per step and rank (measured: mean over " << std::max(1, r.measured_steps) << " profiled step"
     << (r.measured_steps > 1 ? "s" : "") << ", " << r.measured_kernels << " kernels read). Error = (predicted - "
     << "measured) / measured; + means the prediction is slower.\n\n";
  kind_header(os, "By kind (total time per step; time per kernel):");
  for (const auto& [k, f] : r.by_kind) kind_row(os, k, f);
  os << '\n';
  kind_header(os, "By kind and pass:");
  for (const auto& [k, f] : r.by_kind_pass) kind_row(os, k.first + " " + k.second, f);
  os << "\nBy rank (all kernels):\n";
  for (const auto& [k, f] : r.by_rank) kind_row(os, "rank " + std::to_string(k), f);
  os << "\nStep (first kernel to last; busy time is the union of kernel intervals):\n"
     << "  " << std::left << std::setw(22) << "rank" << std::right << std::setw(13) << "step us" << std::setw(13)
     << "compute us" << std::setw(13) << "comm us" << std::setw(13) << "exposed us" << std::setw(9) << "overlap" << '\n';
  for (const auto& [k, f] : r.ranks) {
    if (f.in_predicted) busy_row(os, "rank " + std::to_string(k) + " predicted", f.predicted);
    if (f.in_measured) busy_row(os, "rank " + std::to_string(k) + " measured", f.measured);
  }
  os << "Slowest rank: predicted " << r.slowest_predicted << ", measured " << r.slowest_measured << '\n';
  if (!r.unmatched.empty()) {
    os << "\nMeasured kernels no rule classifies (" << r.unmatched.size() << " names; add rules with --kernel-rules):\n";
    for (std::size_t i = 0; i < r.unmatched.size() && i < max_listed; ++i)
      os << "  " << std::setw(8) << count(r.unmatched[i].count) << " x " << std::setw(10) << us(r.unmatched[i].time_s)
         << " us  " << r.unmatched[i].name.substr(0, 100) << '\n';
    if (r.unmatched.size() > max_listed) os << "  ... (" << r.unmatched.size() - max_listed << " more)\n";
  }
  if (!r.notes.empty()) {
    os << "\nNotes:\n";
    for (const auto& n : r.notes) os << "  " << n << '\n';
  }
}

}  // namespace hcpsim
