#include "engine/trace/trace_filter.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace hcpsim {
namespace {

bool parse_int(std::string_view s, int& out) {
  if (s.empty()) return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && out >= 0;
}

}  // namespace

IndexRanges parse_index_ranges(std::string_view text, const std::string& option) {
  IndexRanges r;
  if (text.empty()) throw std::invalid_argument(option + ": empty list; expected numbers and ranges such as 0,5-7");
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string_view item = text.substr(pos, comma - pos);
    const std::size_t dash = item.find('-');
    int a = 0, b = 0;
    const bool ok = dash == std::string_view::npos
                        ? parse_int(item, a) && (b = a, true)
                        : parse_int(item.substr(0, dash), a) && parse_int(item.substr(dash + 1), b);
    if (!ok)
      throw std::invalid_argument(option + ": '" + std::string(item) +
                                  "' is not a non-negative number or a range A-B; expected e.g. 0,5-7");
    if (a > b)
      throw std::invalid_argument(option + ": range '" + std::string(item) + "' ends before it starts; write A-B with A <= B");
    r.emplace_back(a, b);
    pos = comma + 1;
  }
  std::sort(r.begin(), r.end());
  IndexRanges merged;
  for (const auto& x : r) {
    if (!merged.empty() && x.first <= merged.back().second + 1) merged.back().second = std::max(merged.back().second, x.second);
    else merged.push_back(x);
  }
  return merged;
}

void require_below(const IndexRanges& r, int limit, const std::string& option, const std::string& what) {
  if (r.empty() || r.back().second < limit) return;
  throw std::invalid_argument(option + ": " + std::to_string(r.back().second) + " is out of range; valid " + what +
                              " are 0.." + std::to_string(limit - 1));
}

bool TraceFilter::contains(const IndexRanges& r, int v) {
  auto it = std::upper_bound(r.begin(), r.end(), v, [](int x, const std::pair<int, int>& p) { return x < p.first; });
  return it != r.begin() && std::prev(it)->second >= v;
}

}  // namespace hcpsim
