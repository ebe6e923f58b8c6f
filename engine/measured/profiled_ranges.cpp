#include "engine/measured/profiled_ranges.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>
#include <string>

namespace hcpsim {
namespace {

bool contains(const std::string& s, const char* word) { return s.find(word) != std::string::npos; }

// Ranges sorted by start; finds the innermost one holding time t (the latest-starting that holds it).
class RangeIndex {
 public:
  explicit RangeIndex(std::vector<ProfiledRange> ranges) : ranges_(std::move(ranges)) {
    std::sort(ranges_.begin(), ranges_.end(), [](const auto& a, const auto& b) { return a.start_s < b.start_s; });
  }
  bool empty() const { return ranges_.empty(); }
  const ProfiledRange* find(double t) const {
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), t,
                               [](double v, const ProfiledRange& r) { return v < r.start_s; });
    // Walk back over a bounded number of earlier ranges (nesting is shallow in practice).
    for (int n = 0; it != ranges_.begin() && n < 64; ++n) {
      --it;
      if (it->end_s >= t) return &*it;
    }
    return nullptr;
  }

 private:
  std::vector<ProfiledRange> ranges_;
};

// The range of `host` / `gpu` holding a kernel: GPU ranges by kernel start, host ranges by launch.
const ProfiledRange* holder(const RangeIndex& gpu, const RangeIndex& host, double start_s, double launch_s) {
  if (!gpu.empty()) {
    if (const auto* r = gpu.find(start_s)) return r;
  }
  return host.find(launch_s);
}

}  // namespace

bool parse_profiled_range(std::string_view name, ProfiledRange& out) {
  std::string s(name);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* prefix : {"profilerstep#", "step", "iteration"}) {
    const std::string p(prefix);
    if (s.compare(0, p.size(), p) != 0) continue;
    std::size_t i = p.size();
    while (i < s.size() && (s[i] == ' ' || s[i] == '_' || s[i] == '#' || s[i] == '-')) ++i;
    if (i == s.size() || i - p.size() > 2) continue;
    std::int64_t v = 0;
    std::size_t j = i;
    for (; j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])) && j - i < 15; ++j) v = v * 10 + (s[j] - '0');
    if (j != s.size()) continue;
    out.step = v;
    out.pass = MeasuredPass::Unknown;
    return true;
  }
  const bool fwd = contains(s, "forward") || contains(s, "fwd");
  const bool bwd = contains(s, "backward") || contains(s, "bwd");
  if (fwd == bwd) return false;
  out.step = -1;
  out.pass = fwd ? MeasuredPass::Forward : MeasuredPass::Backward;
  return true;
}

void sort_kernels_by_start(std::vector<MeasuredKernel>& kernels, std::vector<std::int64_t>& correlation) {
  std::vector<std::size_t> order(kernels.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return kernels[a].start_s < kernels[b].start_s; });
  std::vector<MeasuredKernel> k(order.size());
  std::vector<std::int64_t> c(order.size(), -1);
  for (std::size_t i = 0; i < order.size(); ++i) {
    k[i] = kernels[order[i]];
    if (order[i] < correlation.size()) c[i] = correlation[order[i]];
  }
  kernels = std::move(k);
  correlation = std::move(c);
}

void assign_profiled_ranges(MeasuredRank& r, std::vector<ProfiledRange> ranges,
                            const std::vector<std::int64_t>& correlation, const LaunchTimes& launches) {
  std::vector<ProfiledRange> step_gpu, step_host, pass_gpu, pass_host;
  std::map<std::int64_t, std::int32_t> step_index;   // profiler step number -> 0..
  for (const auto& x : ranges) {
    if (x.step >= 0) {
      step_index.emplace(x.step, 0);
      (x.on_gpu ? step_gpu : step_host).push_back(x);
    } else {
      (x.on_gpu ? pass_gpu : pass_host).push_back(x);
    }
  }
  std::int32_t next = 0;
  for (auto& [number, index] : step_index) index = next++;
  r.steps = next;
  const RangeIndex sg(std::move(step_gpu)), sh(std::move(step_host)), pg(std::move(pass_gpu)), ph(std::move(pass_host));
  for (std::size_t i = 0; i < r.kernels.size(); ++i) {
    auto& k = r.kernels[i];
    double launch_s = k.start_s;
    if (i < correlation.size() && correlation[i] >= 0) {
      if (auto it = launches.find(correlation[i]); it != launches.end()) launch_s = k.launch_s = it->second;
    }
    if (const auto* s = holder(sg, sh, k.start_s, launch_s)) k.step = step_index.at(s->step);
    if (k.kind == MeasuredKind::AttentionForward) k.pass = MeasuredPass::Forward;
    else if (k.kind == MeasuredKind::AttentionBackward) k.pass = MeasuredPass::Backward;
    else if (const auto* p = holder(pg, ph, k.start_s, launch_s)) k.pass = p->pass;
  }
}

}  // namespace hcpsim
