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
  // Merges what was added; call before the queries.
  void finish() {
    std::sort(raw_.begin(), raw_.end());
    merged_.clear();
    for (const auto& iv : raw_) {
      if (!merged_.empty() && iv.first <= merged_.back().second)
        merged_.back().second = std::max(merged_.back().second, iv.second);
      else
        merged_.push_back(iv);
    }
    std::vector<std::pair<double, double>>().swap(raw_);   // the raw intervals' memory is not needed again
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
  std::vector<std::pair<double, double>> raw_, merged_;
};

}  // namespace hcpsim
