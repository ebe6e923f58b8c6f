#pragma once
// Sorted disjoint interval unions, for busy-time and overlap metrics. Seconds.
#include <algorithm>
#include <span>
#include <utility>
#include <vector>

namespace hcpsim {

class IntervalUnion {
 public:
  void add(double a, double b) {
    if (b > a) raw_.emplace_back(a, b);
  }
  // The union of what was added, holding exactly its merged parts (no spare capacity); this one is
  // left empty with its capacity kept, ready to collect the next set of intervals.
  IntervalUnion take_union() {
    IntervalUnion u = of(raw_);
    raw_.clear();
    return u;
  }
  // The union of the intervals in `raw` (each with b > a, as add() keeps them), which it sorts and
  // overwrites; the result holds exactly its merged parts.
  static IntervalUnion of(std::span<std::pair<double, double>> raw) {
    std::sort(raw.begin(), raw.end());
    return of_sorted(raw);
  }
  // The same for `raw` already in ascending order (it is overwritten).
  static IntervalUnion of_sorted(std::span<std::pair<double, double>> raw) {
    std::size_t w = 0;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (w > 0 && raw[i].first <= raw[w - 1].second)
        raw[w - 1].second = std::max(raw[w - 1].second, raw[i].second);
      else
        raw[w++] = raw[i];
    }
    IntervalUnion u;
    u.merged_.assign(raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(w));
    return u;
  }
  // Total length of the union.
  double length() const {
    double s = 0;
    for (const auto& [a, b] : merged_) s += b - a;
    return s;
  }
  // Length of [a, b] covered by the union.
  double covered(double a, double b) const {
    if (b <= a) return 0;
    auto it = std::upper_bound(merged_.begin(), merged_.end(), std::make_pair(a, a),
                               [](const auto& x, const auto& y) { return x.first < y.first; });
    if (it != merged_.begin()) --it;
    double s = 0;
    for (; it != merged_.end() && it->first < b; ++it) s += std::max(0.0, std::min(b, it->second) - std::max(a, it->first));
    return s;
  }
  // Length of the intersection with another union.
  double intersection(const IntervalUnion& o) const {
    double s = 0;
    for (const auto& [a, b] : merged_) s += o.covered(a, b);
    return s;
  }
  const std::vector<std::pair<double, double>>& parts() const { return merged_; }

 private:
  std::vector<std::pair<double, double>> raw_;      // added, not merged yet
  std::vector<std::pair<double, double>> merged_;   // sorted, disjoint
};

}  // namespace hcpsim
