#pragma once
// FlatKeyMap: a map from 64-bit keys to 32-bit values in one array (open addressing, linear probing,
// erase by shifting the probe run back, so no tombstones). For a few thousand live keys that come
// and go millions of times (the analytic backend's event times): no allocation once grown, one or
// two cache lines per lookup. Values must not be kNoValue.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace hcpsim {

class FlatKeyMap {
 public:
  static constexpr std::uint32_t kNoValue = 0xffffffffu;

  FlatKeyMap() { rebuild(kMinSlots); }

  std::size_t size() const { return size_; }

  // The value of `key`, kNoValue when absent.
  std::uint32_t find(std::uint64_t key) const {
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.value == kNoValue) return kNoValue;
      if (s.key == key) return s.value;
    }
  }

  // Maps `key` (absent) to `value` (not kNoValue).
  void insert(std::uint64_t key, std::uint32_t value) {
    if (2 * (size_ + 1) > slots_.size()) rebuild(2 * slots_.size());
    place(key, value);
    ++size_;
  }

  // Removes `key` (present).
  void erase(std::uint64_t key) {
    std::size_t hole = home(key);
    while (slots_[hole].key != key || slots_[hole].value == kNoValue) hole = (hole + 1) & mask_;
    // Backward shift: every later entry of the probe run whose home does not lie in (hole, i]
    // moves into the hole, which then moves to where it was.
    for (std::size_t i = (hole + 1) & mask_; slots_[i].value != kNoValue; i = (i + 1) & mask_) {
      const std::size_t h = home(slots_[i].key);
      const bool stays = hole <= i ? (hole < h && h <= i) : (hole < h || h <= i);
      if (stays) continue;
      slots_[hole] = slots_[i];
      hole = i;
    }
    slots_[hole].value = kNoValue;
    --size_;
  }

 private:
  static constexpr std::size_t kMinSlots = 1024;
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t value = kNoValue;
  };

  // Fibonacci hashing: the top bits of key * 2^64 / golden ratio.
  std::size_t home(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  void place(std::uint64_t key, std::uint32_t value) {
    std::size_t i = home(key);
    while (slots_[i].value != kNoValue) i = (i + 1) & mask_;
    slots_[i] = {key, value};
  }

  void rebuild(std::size_t slots) {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(slots, Slot{});
    mask_ = slots - 1;
    shift_ = 64;
    for (std::size_t n = slots; n > 1; n >>= 1) --shift_;
    for (const Slot& s : old)
      if (s.value != kNoValue) place(s.key, s.value);
  }

  std::vector<Slot> slots_;   // a power of two of them, at most half full
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
  std::size_t size_ = 0;
};

}  // namespace hcpsim
