#pragma once
// EventQueue: the analytic backend's pending events, popped in (time, order) order. `order` is
// unique per event and grows with every push (the backend puts its push counter in its high bits),
// so the order in which events pop is fixed by the events alone: the same as std::priority_queue's
// on the same keys, only cheaper.
//
// Many events share a time exactly (1,024 ranks doing the same thing at once: the bench scenario
// pops 2.1 M events at 57 k distinct times), so the queue keeps one FIFO bucket per distinct time and
// a 4-ary min-heap of the distinct times. Within a time, events pop in push order, which is their
// `order` order because `order` grows with every push. A push looks its time up in a FlatKeyMap
// (the last time pushed to is checked first); the heap moves only when a time appears or empties.
// Precondition: times are not NaN, and every push has an `order` larger than every earlier push's.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/analytic/flat_key_map.h"

namespace hcpsim {

struct TimedEvent {
  double t = 0;             // simulated time, seconds (not NaN; -0.0 comes back as 0.0)
  std::uint64_t order = 0;  // tie-break among equal times: smaller pops first; grows with every push
  std::uint32_t a = 0;      // payload
  std::uint32_t b = 0;      // payload
};

class EventQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  // The event with the smallest (t, order) (call when !empty()).
  TimedEvent top() const {
    const Bucket& k = buckets_[times_.front().bucket];
    const Node& n = nodes_[k.head];
    return {time_of(k.time_key), n.order, n.a, n.b};
  }

  void push(const TimedEvent& e) {
    const std::uint64_t key = time_key(e.t);
    std::uint32_t b = last_key_ == key ? last_bucket_ : index_.find(key);
    if (b == FlatKeyMap::kNoValue) b = open_bucket(key);
    last_key_ = key;
    last_bucket_ = b;
    const std::uint32_t node = take_node();
    nodes_[node] = {e.order, e.a, e.b, kNil};
    Bucket& k = buckets_[b];
    if (k.head == kNil) k.head = node;
    else nodes_[k.tail].next = node;
    k.tail = node;
    ++size_;
  }

  // Removes top() (call when !empty()).
  void pop() {
    const std::uint32_t b = times_.front().bucket;
    Bucket& k = buckets_[b];
    const std::uint32_t node = k.head;
    k.head = nodes_[node].next;
    nodes_[node].next = free_node_;
    free_node_ = node;
    --size_;
    if (k.head == kNil) close_bucket(b);
  }

  // A time as an unsigned integer in the same order as the times (-0.0 and 0.0 alike): positive
  // doubles order as their bit patterns, negative ones reversed below them.
  static std::uint64_t time_key(double t) {
    const auto bits = std::bit_cast<std::uint64_t>(t + 0.0);   // -0.0 + 0.0 == +0.0
    return bits >> 63 ? ~bits : bits | kSignBit;
  }
  static double time_of(std::uint64_t key) { return std::bit_cast<double>(key & kSignBit ? key & ~kSignBit : ~key); }

 private:
  static constexpr std::uint32_t kNil = 0xffffffffu;
  static constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;
  static constexpr std::size_t kArity = 4;

  struct Node {   // one pending event, linked into its time's FIFO (or the free list)
    std::uint64_t order;
    std::uint32_t a, b;
    std::uint32_t next;
  };
  struct Bucket {   // the events of one pending time, oldest first
    std::uint64_t time_key = 0;
    std::uint32_t head = kNil, tail = kNil;
  };
  struct HeapEntry {   // a pending time (distinct) and its bucket
    std::uint64_t time_key;
    std::uint32_t bucket;
  };

  std::uint32_t take_node() {
    if (free_node_ == kNil) {
      nodes_.push_back({});
      return static_cast<std::uint32_t>(nodes_.size() - 1);
    }
    const std::uint32_t n = free_node_;
    free_node_ = nodes_[n].next;
    return n;
  }

  std::uint32_t open_bucket(std::uint64_t key) {
    std::uint32_t b;
    if (free_buckets_.empty()) {
      b = static_cast<std::uint32_t>(buckets_.size());
      buckets_.push_back({});
    } else {
      b = free_buckets_.back();
      free_buckets_.pop_back();
    }
    buckets_[b] = {key, kNil, kNil};
    index_.insert(key, b);
    heap_push({key, b});
    return b;
  }

  // Bucket `b` (the earliest time's) is empty: its time leaves the heap and the index.
  void close_bucket(std::uint32_t b) {
    const std::uint64_t key = buckets_[b].time_key;
    index_.erase(key);
    if (last_key_ == key) last_bucket_ = FlatKeyMap::kNoValue, last_key_ = kNoKey;
    free_buckets_.push_back(b);
    heap_pop();
  }

  void heap_push(HeapEntry x) {
    std::size_t i = times_.size();
    times_.push_back(x);
    HeapEntry* h = times_.data();
    while (i > 0) {
      const std::size_t parent = (i - 1) / kArity;
      if (h[parent].time_key <= x.time_key) break;
      h[i] = h[parent];
      i = parent;
    }
    h[i] = x;
  }

  void heap_pop() {
    const HeapEntry last = times_.back();
    times_.pop_back();
    const std::size_t n = times_.size();
    if (n == 0) return;
    HeapEntry* h = times_.data();
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = kArity * i + 1;
      if (first >= n) break;
      const std::size_t end = first + kArity < n ? first + kArity : n;
      std::size_t best = first;
      for (std::size_t c = first + 1; c < end; ++c) best = h[c].time_key < h[best].time_key ? c : best;
      if (last.time_key <= h[best].time_key) break;
      h[i] = h[best];
      i = best;
    }
    h[i] = last;
  }

  // No time maps to this key (it would be a NaN's): "no last bucket".
  static constexpr std::uint64_t kNoKey = 0;

  std::vector<Node> nodes_;
  std::uint32_t free_node_ = kNil;
  std::vector<Bucket> buckets_;
  std::vector<std::uint32_t> free_buckets_;
  std::vector<HeapEntry> times_;   // 4-ary min-heap on time_key; distinct times
  FlatKeyMap index_;               // time_key -> bucket
  std::uint64_t last_key_ = kNoKey;
  std::uint32_t last_bucket_ = FlatKeyMap::kNoValue;
  std::size_t size_ = 0;
};

}  // namespace hcpsim
