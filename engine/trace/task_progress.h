#pragma once
// TaskProgress: how far the times of a run in progress are final, for readers on other threads.
// The thread that records the times (TaskTimesSink) publishes a prefix: "tasks 0 .. ready-1 have
// their final start and end". A reader (the trace file writer of `hcpsim simulate --trace`, the
// report's preparation) waits for the prefix it needs and then reads those times without a lock:
// publishing is a release store, waiting an acquire load, so the times written before are visible.
// Builders number tasks roughly in the order they run (layer by layer, ring step by ring step), so
// the prefix grows steadily during a run and a trace file is written while the run goes on.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace hcpsim {

// Thrown to a reader whose run failed before the times it waits for were published.
class RunAbandoned : public std::runtime_error {
 public:
  RunAbandoned() : std::runtime_error("the run ended without the task times a reader waited for") {}
};

class TaskProgress {
 public:
  // Recording side. The run has started: the first task time is recorded (a backend that forks has
  // forked by then, so work started after this point is not inherited by its child).
  void start() { set_bits(kStarted); }
  // Tasks [0, ready) have their final times (ready never decreases; also marks the run started).
  // One thread records: publish() is never called concurrently with itself or with abandon().
  void publish(std::size_t ready) {
    const std::uint64_t keep = state_.load(std::memory_order_relaxed) & kAbandoned;
    state_.store(keep | kStarted | static_cast<std::uint64_t>(ready), std::memory_order_release);
    state_.notify_all();
  }
  // The run failed: every waiter returns (false) or throws, now and later.
  void abandon() { set_bits(kAbandoned); }

  // Reading side. Wait until the run has started; false when it was abandoned first.
  bool wait_started() const { return wait_until([](std::uint64_t s) { return (s & kStarted) != 0; }); }
  // Wait until tasks [0, count) have their final times; false when the run was abandoned first.
  bool wait_for(std::size_t count) const {
    return wait_until([count](std::uint64_t s) { return (s & kCountMask) >= count; });
  }
  // The published prefix now (no wait).
  std::size_t ready() const { return static_cast<std::size_t>(state_.load(std::memory_order_acquire) & kCountMask); }

 private:
  static constexpr std::uint64_t kAbandoned = std::uint64_t{1} << 63;
  static constexpr std::uint64_t kStarted = std::uint64_t{1} << 62;
  static constexpr std::uint64_t kCountMask = kStarted - 1;

  void set_bits(std::uint64_t bits) {
    state_.fetch_or(bits, std::memory_order_acq_rel);
    state_.notify_all();
  }
  template <typename Done>
  bool wait_until(Done done) const {
    std::uint64_t s = state_.load(std::memory_order_acquire);
    while (!done(s)) {
      if (s & kAbandoned) return false;
      state_.wait(s, std::memory_order_acquire);
      s = state_.load(std::memory_order_acquire);
    }
    return true;
  }

  std::atomic<std::uint64_t> state_{0};
};

}  // namespace hcpsim
