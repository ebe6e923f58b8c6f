#include "engine/measured/launch_fit.h"

#include <algorithm>
#include <map>
#include <vector>

namespace hcpsim {
namespace {

LaunchStat median_of(std::vector<double>& v) {
  LaunchStat s;
  s.samples = v.size();
  if (v.empty()) return s;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  s.median_s = v[mid];
  if (v.size() % 2 == 0) s.median_s = 0.5 * (s.median_s + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid)));
  return s;
}

LaunchStat fifth_percentile(std::vector<double>& v) {
  LaunchStat s;
  if (v.size() < kMinTinyKernels) return s;
  s.samples = v.size();
  const std::size_t k = v.size() / 20;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  s.median_s = v[k];
  return s;
}

}  // namespace

LaunchOverheads fit_launch_overheads(const MeasuredRun& run) {
  std::vector<double> gap[2], latency[2];   // [0] compute, [1] NCCL
  std::vector<double> memory_bound;
  for (const MeasuredRank& r : run.ranks) {
    for (const MeasuredKernel& k : r.kernels)
      if (k.kind == MeasuredKind::MemoryBound) memory_bound.push_back(k.end_s - k.start_s);
    std::map<std::int32_t, double> stream_end;   // CUDA stream -> end of its last kernel so far
    for (const MeasuredKernel& k : r.kernels) {  // sorted by start
      const auto it = stream_end.find(k.stream);
      const bool busy_before = it != stream_end.end();
      const double prev_end = busy_before ? it->second : 0.0;
      stream_end[k.stream] = std::max(prev_end, k.end_s);
      if (k.launch_s < 0) continue;
      const int c = is_communication(k.kind) ? 1 : 0;
      if (busy_before && k.launch_s < prev_end) {
        if (k.start_s >= prev_end) gap[c].push_back(k.start_s - prev_end);
      } else if (k.start_s >= k.launch_s) {
        latency[c].push_back(k.start_s - k.launch_s);
      }
    }
  }
  LaunchOverheads o;
  o.fixed_cost = fifth_percentile(memory_bound);
  o.compute_gap = median_of(gap[0]);
  o.nccl_gap = median_of(gap[1]);
  o.compute_latency = median_of(latency[0]);
  o.nccl_latency = median_of(latency[1]);
  return o;
}

}  // namespace hcpsim
