#include "engine/measured/trace_fit_notes.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>

#include "engine/cost/efficiency_source.h"

namespace hcpsim {
namespace {

std::string us(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f us", s * 1e6);
  return b;
}

}  // namespace

void add_model_notes(const Scenario& s, const LaunchOverheads& l, TraceFitResult& r) {
  const auto& terms = s.cluster.efficiency.terms;
  const auto n = [](const LaunchStat& x) { return std::to_string(x.samples); };
  if (l.fixed_cost.samples > 0)
    r.notes.push_back("kernel_overhead_s = " + us(l.fixed_cost.median_s) + ": 5th percentile of the durations of " +
                      n(l.fixed_cost) + " memory-bound kernels (the shortest kernels: launch ramp and tail)");
  else
    r.notes.push_back("kernel_overhead_s is the model's: fewer than " + std::to_string(kMinTinyKernels) +
                      " memory-bound kernels to fit it from (written so that the fit inverts the same model)");
  if (l.compute_gap.samples > 0)
    r.notes.push_back("the GPU idled " + us(l.compute_gap.median_s) + " between a compute kernel and the next one queued "
                      "on its stream (median of " + n(l.compute_gap) + "): not written, the model has no term for time "
                      "between kernels (kernel_overhead_s is inside a kernel's time)");
  if (l.nccl_latency.samples > 0) {
    const std::string measured = "NCCL kernels started " + us(l.nccl_latency.median_s) +
                                 " after their host call on an idle stream (median of " + n(l.nccl_latency) + ")";
    if (nccl_launch_stated(s)) r.notes.push_back(measured + ": not written, cluster.efficiency.nccl_launch is set in the scenario");
    else if (!terms.host_overheads) r.notes.push_back(measured + ": not written, the host_overheads term is off");
    else r.notes.push_back("nccl_launch_s: " + measured);
  }
  if (l.compute_latency.samples > 0)
    r.notes.push_back("compute kernels started " + us(l.compute_latency.median_s) + " after their host call on an idle "
                      "stream (median of " + n(l.compute_latency) + "): not written, the model has no term for it (it "
                      "assumes the host runs ahead of the GPU)");
  if (l.nccl_gap.samples > 0)
    r.notes.push_back("NCCL kernels queued behind another kernel started " + us(l.nccl_gap.median_s) + " after it (median of " +
                      n(l.nccl_gap) + "): not written, the model has no such term for communication");
  r.notes.push_back("not fitted: ring_step_sync_s (the trace does not record which kernel waited for which transfer)");
  std::map<std::string, int> sizes;   // op and link class -> message sizes fitted
  for (const auto& c : r.collectives) ++sizes[c.op + " on " + c.link_table];
  if (!r.collectives.empty() && !terms.bandwidth_curves)
    r.notes.push_back("the bandwidth_curves term is off: the model reads the send_recv entries only, the collective entries "
                      "are written but not used");
  for (const auto& [what, count] : sizes)
    if (count > 1 && terms.nccl_ring_latency && what.rfind("all_to_all", 0) != 0)
      r.notes.push_back(what + ": " + std::to_string(count) + " message sizes; with the nccl_ring_latency term the model "
                        "reads the entry of the largest only (smaller calls are priced by NCCL's latency and protocol)");
  for (const char* f : {"intra_node_link", "inter_node_link"})
    if (is_stated(field_origin(s, std::string("cluster.efficiency.") + f).origin))
      r.notes.push_back(std::string("cluster.efficiency.") + f + " is set in the scenario: it keeps its level, the fitted "
                        "link entries give only their shape by message size");
}

bool nccl_launch_stated(const Scenario& s) {
  return is_stated(field_origin(s, "cluster.efficiency.nccl_launch").origin);
}

void note_spread(const std::string& what, double bytes, const std::vector<double>& v, TraceFitResult& r) {
  if (v.empty()) return;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  if (!(*hi > 1.2 * *lo)) return;
  char b[96];
  std::snprintf(b, sizeof b, " at %.0f bytes: samples from %.3f to %.3f", bytes, *lo, *hi);
  r.notes.push_back(what + b + " (calls the model prices differently share this message size, e.g. communicators "
                    "of different sizes); the entry is their median");
}

void write_fit_summary(const TraceFitResult& r, std::ostream& os) {
  if (r.tables.empty()) os << "no table filled: no measured kernel matched a task of the scenario\n";
  for (const auto& t : r.tables)
    os << "filled " << t.table << " from " << t.samples << " kernels (" << t.points << " points)\n";
  for (const auto& c : r.collectives) {
    char line[256];
    std::snprintf(line, sizeof line, "%s on %s, %.0f-byte messages, %d ranks: busBw %.1f GB/s, efficiency %.3f (%zu kernels)\n",
                  c.op.c_str(), c.link_table.c_str(), c.message_bytes, c.ranks, c.bus_Bps / 1e9, c.efficiency, c.samples);
    os << line;
  }
  for (const auto& n : r.notes) os << "note: " << n << '\n';
}

}  // namespace hcpsim
