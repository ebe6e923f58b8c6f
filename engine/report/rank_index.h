#pragma once
// RankIndex: the distinct ranks of an EventView numbered 0..size()-1 in ascending rank order, so that
// per-rank state lives in vectors instead of trees keyed by rank (a million-event report looked
// ranks up several times per event), and loops over it visit ranks in the same order a std::map would.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/trace/event_view.h"

namespace hcpsim {

class RankIndex {
 public:
  // View: an EventView, or a class derived from it (calls to a final class's rank() are not virtual).
  template <class View>
  explicit RankIndex(const View& v) {
    const std::size_t n = v.size();
    if (n == 0) return;
    std::int32_t lo = v.rank(0), hi = lo;
    for (std::size_t i = 1; i < n; ++i) {
      const std::int32_t r = v.rank(i);
      lo = std::min(lo, r);
      hi = std::max(hi, r);
    }
    const auto span = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - lo) + 1;
    if (span <= n + 65536) {   // dense enough for a table indexed by rank
      lo_ = lo;
      slot_.assign(static_cast<std::size_t>(span), kAbsent);
      for (std::size_t i = 0; i < n; ++i) slot_[static_cast<std::size_t>(v.rank(i) - lo)] = 0;
      for (std::size_t s = 0; s < slot_.size(); ++s)
        if (slot_[s] == 0) {
          slot_[s] = static_cast<std::uint32_t>(ranks_.size());
          ranks_.push_back(static_cast<std::int32_t>(lo + static_cast<std::int64_t>(s)));
        }
    } else {   // a few ranks spread far apart (a trace file): a sorted list
      ranks_.reserve(n);
      for (std::size_t i = 0; i < n; ++i) ranks_.push_back(v.rank(i));
      std::sort(ranks_.begin(), ranks_.end());
      ranks_.erase(std::unique(ranks_.begin(), ranks_.end()), ranks_.end());
      ranks_.shrink_to_fit();
    }
  }
  std::size_t size() const { return ranks_.size(); }
  std::int32_t rank(std::size_t index) const { return ranks_[index]; }
  // Index of a rank that occurs in the view (precondition).
  std::size_t index(std::int32_t rank) const {
    if (!slot_.empty()) return slot_[static_cast<std::size_t>(rank - lo_)];
    return static_cast<std::size_t>(std::lower_bound(ranks_.begin(), ranks_.end(), rank) - ranks_.begin());
  }

 private:
  static constexpr std::uint32_t kAbsent = 0xffffffffu;
  std::int32_t lo_ = 0;
  std::vector<std::uint32_t> slot_;   // by rank - lo_: index, or kAbsent (dense case only)
  std::vector<std::int32_t> ranks_;   // ascending
};

}  // namespace hcpsim
