// The "Worked numbers" table of docs/schedules.md, recomputed from the graph. Expected values are
// the table's (derived by hand from the group and chunk math), not the code's own output.
#include <gtest/gtest.h>

#include "engine/layout/rank_layout.h"
#include "engine/schedule/build.h"
#include "tests/graph/graph_sums.h"
#include "tests/graph/scenario_fixture.h"

namespace hcpsim {
namespace {

struct Row {
  const char* name;
  testing::Config cfg;
  double a2a_fwd_MiB;      // a2a sent per rank, forward
  int ring_steps;
  double m_kv_MiB;
  double ring_fwd_MiB, ring_bwd_MiB;
  double fwd_flop_step, bwd_flop_step;
  double Tq_MiB;
};

testing::Config cfg(int tp, int cp, std::vector<int> hcp, int h, int g, int d, std::int64_t S, int b) {
  testing::Config c;
  c.tp = tp;
  c.cp = cp;
  c.hcp = hcp;
  c.types = {hcp.empty() ? CpCommType::P2P : CpCommType::A2AP2P};
  c.heads = h;
  c.kv_heads = g;
  c.head_dim = d;
  c.seq = S;
  c.batch = b;
  return c;
}

class WorkedNumbers : public ::testing::TestWithParam<Row> {};

TEST_P(WorkedNumbers, MatchSpecTable) {
  const Row& row = GetParam();
  const Scenario s = testing::make_scenario(row.cfg);
  const RankLayout lay = RankLayout::from_scenario(s);
  const TaskGraph g = build_task_graph(s, lay, GraphOptions{});
  using testing::kMiB;
  const int rank = 0;
  auto on = [&](TaskKind k, Pass p) { return [=](const Task& t) { return t.rank == rank && t.kind == k && t.pass == p; }; };
  auto bytes = [](const Task& t) { return t.bytes; };
  EXPECT_NEAR(testing::sum_over(g, on(TaskKind::AllToAll, Pass::Forward), bytes) / kMiB, row.a2a_fwd_MiB, 0.01);
  EXPECT_EQ(testing::count_if(g, on(TaskKind::AttentionForward, Pass::Forward)), row.ring_steps);
  EXPECT_EQ(testing::count_if(g, on(TaskKind::SendRecv, Pass::Forward)), row.ring_steps - 1);
  EXPECT_NEAR(testing::sum_over(g, on(TaskKind::SendRecv, Pass::Forward), bytes) / kMiB, row.ring_fwd_MiB, 0.01);
  EXPECT_NEAR(testing::sum_over(g, on(TaskKind::SendRecv, Pass::Backward), bytes) / kMiB, row.ring_bwd_MiB, 0.01);
  for (const Task& t : g.tasks()) {
    if (t.rank != rank) continue;
    if (t.kind == TaskKind::SendRecv && t.pass == Pass::Forward) { EXPECT_NEAR(t.bytes / kMiB, row.m_kv_MiB, 1e-9); }
    // the table rounds to 4 digits, and counts 2c^2 pairs for the diagonal (exact: 2c^2 + c)
    if (t.attention != kNone) {
      const AttentionShape& a = g.attention_of(t);
      const double tol = 2e-3 + (a.section == MaskSection::Diagonal ? 1.0 / static_cast<double>(a.q_len) : 0.0);
      const double want = t.kind == TaskKind::AttentionForward ? row.fwd_flop_step : row.bwd_flop_step;
      EXPECT_NEAR(t.flops / want, 1.0, tol) << g.display_name(t);
    }
    if (t.kind == TaskKind::AllToAll && g.label(t) == "a2a_q") {
      const CommOp& op = g.comms()[t.comm];
      EXPECT_NEAR(op.bytes_per_rank / kMiB, row.Tq_MiB, 1e-9);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Spec37, WorkedNumbers,
    ::testing::Values(
        Row{"tp2_cp8_hcp2x4_llama70b", cfg(2, 8, {2, 4}, 64, 8, 128, 131072, 1), 144, 4, 32, 96, 192, 4.398e12, 1.100e13, 128},
        Row{"tp2_cp8_p2p_llama70b", cfg(2, 8, {}, 64, 8, 128, 131072, 1), 0, 8, 32, 224, 448, 2.199e12, 5.498e12, 0},
        Row{"tp1_cp4_hcp2x2_llama8b", cfg(1, 4, {2, 2}, 32, 8, 128, 32768, 1), 80, 2, 32, 32, 64, 1.100e12, 2.749e12, 64},
        Row{"tp1_cp4_p2p_llama8b", cfg(1, 4, {}, 32, 8, 128, 32768, 1), 0, 4, 32, 96, 192, 5.498e11, 1.374e12, 0},
        Row{"tp1_cp16_hcp8x2_bridge", cfg(1, 16, {8, 2}, 32, 8, 128, 131072, 1), 140, 2, 32, 32, 64, 4.398e12, 1.100e13, 64},
        Row{"tp1_cp4_hcp2x2_megatron_test", cfg(1, 4, {2, 2}, 8, 8, 64, 1024, 4), 2.0, 2, 2, 2, 4, 5.37e8, 1.34e9, 1}),
    [](const auto& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace hcpsim
