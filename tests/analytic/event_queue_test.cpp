// EventQueue pops exactly what std::priority_queue pops on the same (time, order) keys, ties
// included, whatever mix of pushes and pops comes.
#include "engine/analytic/event_queue.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <queue>
#include <random>
#include <vector>

namespace hcpsim {
namespace {

struct Later {
  bool operator()(const TimedEvent& x, const TimedEvent& y) const {
    return x.t != y.t ? x.t > y.t : x.order > y.order;
  }
};
using Reference = std::priority_queue<TimedEvent, std::vector<TimedEvent>, Later>;

void expect_same(const TimedEvent& got, const TimedEvent& want, std::size_t step) {
  ASSERT_EQ(got.t, want.t) << "pop " << step;
  ASSERT_EQ(got.order, want.order) << "pop " << step;
  ASSERT_EQ(got.a, want.a) << "pop " << step;
  ASSERT_EQ(got.b, want.b) << "pop " << step;
}

// A discrete-event run: pop the earliest, push a few events at now + a delay drawn from a small set
// (many exact ties, zero delays included), as the backend does; orders grow with every push.
TEST(EventQueue, PopsInTimeThenOrderLikeAPriorityQueue) {
  for (const std::uint32_t seed : {1u, 2u, 3u}) {
    std::mt19937_64 rng(seed);
    const std::vector<double> delays = {0.0, 1e-6, 2.5e-6, 2.5e-6, 1e-3, 3e-7, 0.125};
    EventQueue q;
    Reference ref;
    std::uint64_t seq = 0;
    auto push = [&](double t) {
      const TimedEvent e{t, seq++ << 2 | (rng() & 3u), static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(seq)};
      q.push(e);
      ref.push(e);
    };
    for (int i = 0; i < 500; ++i) push(delays[rng() % delays.size()]);
    std::size_t pops = 0, ties = 0;
    double last_t = -1;
    while (!ref.empty()) {
      ASSERT_FALSE(q.empty());
      ASSERT_EQ(q.size(), ref.size());
      const TimedEvent want = ref.top();
      expect_same(q.top(), want, pops);
      q.pop();
      ref.pop();
      ties += want.t == last_t;
      last_t = want.t;
      if (++pops < 200000) {
        const int n = static_cast<int>(rng() % 3);   // 0, 1 or 2 new events: the queue breathes
        for (int k = 0; k < n; ++k) push(want.t + delays[rng() % delays.size()]);
      }
    }
    EXPECT_TRUE(q.empty());
    EXPECT_GT(pops, 100000u);
    EXPECT_GT(ties, pops / 10) << "the test must exercise equal times";
  }
}

// Times far apart and negative ones, with -0.0 and 0.0 the same time (as for the < operator).
TEST(EventQueue, OrdersAnyFiniteTimeAndTreatsMinusZeroAsZero) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1e6, 1e6);
  EventQueue q;
  Reference ref;
  std::uint64_t seq = 0;
  for (int i = 0; i < 3000; ++i) {
    double t = i % 5 == 0 ? 0.0 : (i % 5 == 1 ? -0.0 : u(rng));
    if (i % 7 == 0) t = 1e-300 * static_cast<double>(i % 3);
    const TimedEvent e{t, ++seq, static_cast<std::uint32_t>(i), 0};
    q.push(e);
    ref.push(e);
  }
  for (std::size_t i = 0; !ref.empty(); ++i) {
    const TimedEvent got = q.top();
    EXPECT_EQ(got.t, ref.top().t);   // -0.0 == 0.0
    ASSERT_EQ(got.a, ref.top().a) << "pop " << i;
    q.pop();
    ref.pop();
  }
  EXPECT_TRUE(q.empty());
}

TEST(EventQueue, TimeKeyIsMonotone) {
  const std::vector<double> sorted = {-1e300, -2.0, -1.0, -1e-300, 0.0, 1e-300, 1.0, 2.0, 1e300};
  for (std::size_t i = 0; i + 1 < sorted.size(); ++i)
    EXPECT_LT(EventQueue::time_key(sorted[i]), EventQueue::time_key(sorted[i + 1])) << sorted[i];
  EXPECT_EQ(EventQueue::time_key(-0.0), EventQueue::time_key(0.0));
  for (const double t : sorted) EXPECT_EQ(EventQueue::time_of(EventQueue::time_key(t)), t);
}

}  // namespace
}  // namespace hcpsim
