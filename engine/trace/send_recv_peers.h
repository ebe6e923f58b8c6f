#pragma once
// SendRecvPeers: the peers of every member of one SendRecv op, as append_peers (engine/trace/trace.h)
// gives them (the ranks it sends to, in transfer order, without itself and without repeats), from
// the op's transfers sorted by sender once instead of scanned once per member.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/graph/task_graph.h"

namespace hcpsim {

class SendRecvPeers {
 public:
  SendRecvPeers() = default;
  explicit SendRecvPeers(const CommOp& op) {
    by_src_.reserve(op.transfers.size());
    for (std::size_t i = 0; i < op.transfers.size(); ++i)
      by_src_.push_back({op.transfers[i].src, static_cast<std::uint32_t>(i), op.transfers[i].dst});
    std::sort(by_src_.begin(), by_src_.end(),
              [](const Entry& a, const Entry& b) { return a.src != b.src ? a.src < b.src : a.order < b.order; });
  }
  // Appends the peers of the member on `rank`.
  void append(std::int32_t rank, std::vector<std::int32_t>& out) const {
    const std::size_t first = out.size();
    auto it = std::lower_bound(by_src_.begin(), by_src_.end(), rank,
                               [](const Entry& e, std::int32_t r) { return e.src < r; });
    for (; it != by_src_.end() && it->src == rank; ++it)
      if (it->dst != rank && std::find(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), it->dst) == out.end())
        out.push_back(it->dst);
  }

 private:
  struct Entry {
    std::int32_t src;
    std::uint32_t order;
    std::int32_t dst;
  };
  std::vector<Entry> by_src_;
};

}  // namespace hcpsim
