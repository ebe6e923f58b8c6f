#pragma once
// TraceFilter: which events a trace file keeps (`--trace-ranks 0,5-7`, `--trace-layers 0`). Applied
// while the file is written, so nothing is stored for the events it drops.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hcpsim {

// Closed ranges [first, last] of non-negative integers, sorted and merged.
using IndexRanges = std::vector<std::pair<int, int>>;

// Parses "0,5-7" (numbers and A-B ranges, comma separated, A <= B, each >= 0). Throws
// std::invalid_argument starting with `option` and naming the bad item and the valid form.
IndexRanges parse_index_ranges(std::string_view text, const std::string& option);

// Throws std::invalid_argument starting with `option` when a range reaches `limit` or beyond
// (valid values 0..limit-1, named in the message with `what`, e.g. "ranks").
void require_below(const IndexRanges& r, int limit, const std::string& option, const std::string& what);

struct TraceFilter {
  IndexRanges ranks;    // empty: every rank
  IndexRanges layers;   // empty: every simulated layer
  bool keeps_rank(int rank) const { return ranks.empty() || contains(ranks, rank); }
  bool keeps(int rank, int layer) const { return keeps_rank(rank) && (layers.empty() || contains(layers, layer)); }
  bool keeps_all() const { return ranks.empty() && layers.empty(); }
  static bool contains(const IndexRanges& r, int v);
};

}  // namespace hcpsim
