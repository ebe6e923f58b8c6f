#pragma once
// RankIndex: the distinct ranks of a run's events numbered 0..size()-1 in ascending rank order, so
// that per-rank state lives in vectors instead of trees keyed by rank (a million-event report looked
// ranks up several times per event), and loops over it visit ranks in the same order a std::map would.
// Built from the events' ranks copied into one array (4 bytes an event), which the report reads
// again and again instead of the events themselves.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace hcpsim {

class RankIndex {
 public:
  explicit RankIndex(std::span<const std::int32_t> rank_of) {
    const std::size_t n = rank_of.size();
    if (n == 0) return;
    std::int32_t lo = rank_of[0], hi = lo;
    for (const std::int32_t r : rank_of) {
      lo = std::min(lo, r);
      hi = std::max(hi, r);
    }
    const auto span = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - lo) + 1;
    if (span <= n + 65536) {   // dense enough for a table indexed by rank
      lo_ = lo;
      slot_.assign(static_cast<std::size_t>(span), kAbsent);
      for (const std::int32_t r : rank_of) slot_[static_cast<std::size_t>(r - lo)] = 0;
      for (std::size_t s = 0; s < slot_.size(); ++s)
        if (slot_[s] == 0) {
          slot_[s] = static_cast<std::uint32_t>(ranks_.size());
          ranks_.push_back(static_cast<std::int32_t>(lo + static_cast<std::int64_t>(s)));
        }
    } else {   // a few ranks spread far apart (a trace file): a sorted list
      ranks_.assign(rank_of.begin(), rank_of.end());
      std::sort(ranks_.begin(), ranks_.end());
      ranks_.erase(std::unique(ranks_.begin(), ranks_.end()), ranks_.end());
      ranks_.shrink_to_fit();
    }
  }
  std::size_t size() const { return ranks_.size(); }
  std::int32_t rank(std::size_t index) const { return ranks_[index]; }
  // Index of a rank that occurs in the events (precondition).
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

// The events grouped by rank: the indices of rank index ri's events are
// index[first[ri]] .. index[first[ri + 1] - 1], ascending (a stable counting sort of the events).
struct EventsByRank {
  std::vector<std::uint32_t> first;   // ranks + 1 offsets
  std::vector<std::uint32_t> index;   // event indices, rank after rank
};

// `slot_of[i]`: the RankIndex index of event i's rank; `ranks`: how many there are.
inline EventsByRank group_by_rank(std::span<const std::int32_t> slot_of, std::size_t ranks) {
  EventsByRank g;
  g.first.assign(ranks + 1, 0);
  for (const std::int32_t s : slot_of) ++g.first[static_cast<std::size_t>(s) + 1];
  for (std::size_t ri = 0; ri < ranks; ++ri) g.first[ri + 1] += g.first[ri];
  g.index.resize(slot_of.size());
  std::vector<std::uint32_t> fill(g.first.begin(), g.first.end() - 1);
  for (std::size_t i = 0; i < slot_of.size(); ++i)
    g.index[fill[static_cast<std::size_t>(slot_of[i])]++] = static_cast<std::uint32_t>(i);
  return g;
}

}  // namespace hcpsim
