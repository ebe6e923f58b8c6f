// The `memory_operators` term (docs/metrics.md section 9.4): with it on, the p2p ring's
// memory-bound kernels carry the bytes Transformer Engine's kernels read and write, per ring rank;
// with it off, the nominal full-size bytes.
#include <gtest/gtest.h>

#include "engine/layout/rank_layout.h"
#include "engine/schedule/build.h"
#include "tests/graph/graph_sums.h"
#include "tests/graph/scenario_fixture.h"

namespace hcpsim {
namespace {

struct Sums {
  double out_corr = 0, lse_merge = 0, dq_acc = 0, dkv_add = 0;
};

Sums sums_of(const TaskGraph& g, int rank) {
  Sums s;
  for (const Task& t : g.tasks()) {
    if (t.rank != rank) continue;
    const std::string_view l = g.label(t);
    if (l == "out_corr") s.out_corr += t.bytes;
    if (l == "lse_merge") s.lse_merge += t.bytes;
    if (l == "dq_acc") s.dq_acc += t.bytes;
    if (l == "dkv_add") s.dkv_add += t.bytes;
  }
  return s;
}

TEST(MemoryOperators, RingKernelsCarryTransformerEngineBytes) {
  const int R = 4;
  testing::Config k;
  k.cp = R;
  k.heads = 4;
  k.kv_heads = 2;
  k.head_dim = 8;
  k.seq = 2LL * R * 16;   // half chunk c = 16 tokens
  Scenario s = testing::make_scenario(k);
  s.cluster.efficiency.terms.memory_operators = true;
  const RankLayout lay = RankLayout::from_scenario(s);
  const TaskGraph on = build_task_graph(s, lay, GraphOptions{});
  s.cluster.efficiency.terms.memory_operators = false;
  const TaskGraph off = build_task_graph(s, lay, GraphOptions{});
  const double c = 16, e = 2;
  const double O = 2 * c * 4 * 8 * e;        // output of one rank, bf16
  const double L = 2 * c * 4 * 4.0;          // LSE, fp32
  const double D = 2 * c * 4 * 8 * e;        // dQ
  const double M = 2 * c * 2 * (8 + 8) * e;  // one KV message (K and V)
  const auto& ring = lay.groups(GroupKind::CP).front();
  for (int r = 0; r < R; ++r) {
    const int rank = ring[static_cast<std::size_t>(r)];
    const Sums a = sums_of(on, rank), b = sums_of(off, rank);
    // Forward: ring rank r has r lower steps (i <= r, i >= 1) and R-1-r upper steps.
    const double lower = r, upper = R - 1 - r;
    EXPECT_DOUBLE_EQ(a.out_corr, 2 * O + 2 * L + lower * (3 * O + 2 * L) + upper * (3 * O + 2 * L) / 2) << r;
    EXPECT_DOUBLE_EQ(a.lse_merge, 2 * L + lower * 3 * L + upper * 1.5 * L) << r;
    EXPECT_DOUBLE_EQ(b.out_corr, (R + 1) * (O + L)) << r;
    EXPECT_DOUBLE_EQ(b.lse_merge, R * 3 * L) << r;
    // Backward step i: upper when i < R-r-1 (dQ second half only), lower when R-r-1 <= i < R-1
    // (dK/dV first half only), diagonal at i = R-1. Step 0 copies (2x), later steps add (3x).
    double dq = 0, dkv = 0;
    for (int i = 0; i < R; ++i) {
      const bool up = i < R - r - 1, low = !up && i < R - 1;
      const double f = i == 0 ? 2 : 3;
      dq += (up ? 0.5 : 1.0) * f * D;
      dkv += (low ? 0.5 : 1.0) * f * M;
    }
    EXPECT_DOUBLE_EQ(a.dq_acc, dq) << r;
    EXPECT_DOUBLE_EQ(a.dkv_add, dkv) << r;
    EXPECT_DOUBLE_EQ(b.dq_acc, (2 + 3 * (R - 1)) * D) << r;
    EXPECT_DOUBLE_EQ(b.dkv_add, (2 + 3 * (R - 1)) * M) << r;
  }
}

}  // namespace
}  // namespace hcpsim
