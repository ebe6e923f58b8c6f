#pragma once
// Sorted disjoint interval unions, for busy-time and overlap metrics. Seconds.
#include <algorithm>
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
    std::sort(raw_.begin(), raw_.end());
    std::size_t w = 0;
    for (std::size_t i = 0; i < raw_.size(); ++i) {
      if (w > 0 && raw_[i].first <= raw_[w - 1].second)
        raw_[w - 1].second = std::max(raw_[w - 1].second, raw_[i].second);
      else
        raw_[w++] = raw_[i];
    }
    IntervalUnion u;
    u.merged_.assign(raw_.begin(), raw_.begin() + static_cast<std::ptrdiff_t>(w));
    raw_.clear();
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
