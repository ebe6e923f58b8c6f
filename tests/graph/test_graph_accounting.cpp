// The FLOP accounting of docs/schedules.md recomputed independently in the test: attention FLOPs per rank and in total,
// bytes per message and per rank, number of steps, for every cp_comm_type.
#include <gtest/gtest.h>

#include "engine/layout/rank_layout.h"
#include "engine/schedule/build.h"
#include "tests/graph/graph_sums.h"
#include "tests/graph/scenario_fixture.h"

namespace hcpsim {
namespace {

struct Case {
  const char* name;
  CpCommType type;
  int tp, cp;
  std::vector<int> hcp;
  int h, g, d, b;
  bool causal;
};

std::vector<Case> cases() {
  return {
      {"p2p_cp4", CpCommType::P2P, 1, 4, {}, 8, 2, 16, 1, true},
      {"p2p_cp8_tp2_b2", CpCommType::P2P, 2, 8, {}, 16, 4, 8, 2, true},
      {"p2p_cp4_nomask", CpCommType::P2P, 1, 4, {}, 8, 8, 16, 1, false},
      {"a2a_cp4", CpCommType::A2A, 1, 4, {}, 8, 4, 16, 1, true},
      {"a2a_cp2_tp2_nomask", CpCommType::A2A, 2, 2, {}, 8, 4, 16, 2, false},
      {"allgather_cp4", CpCommType::AllGather, 1, 4, {}, 8, 1, 16, 1, true},
      {"allgather_cp8_tp2_nomask", CpCommType::AllGather, 2, 8, {}, 8, 2, 8, 1, false},
      {"hcp_2x4_tp2", CpCommType::A2AP2P, 2, 8, {2, 4}, 16, 4, 16, 1, true},
      {"hcp_4x2", CpCommType::A2AP2P, 1, 8, {4, 2}, 8, 4, 16, 2, true},
      {"hcp_2x2_nomask", CpCommType::A2AP2P, 1, 4, {2, 2}, 8, 2, 16, 1, false},
      {"hcp_1x4_fallback_p2p", CpCommType::A2AP2P, 1, 4, {1, 4}, 8, 2, 16, 1, true},
      {"hcp_4x1_fallback_a2a", CpCommType::A2AP2P, 1, 4, {4, 1}, 8, 4, 16, 1, true},
  };
}

class Accounting : public ::testing::TestWithParam<Case> {
 protected:
  Scenario scenario() const {
    const Case& c = GetParam();
    testing::Config k;
    k.tp = c.tp;
    k.cp = c.cp;
    k.hcp = c.hcp;
    k.types = {c.type};
    k.heads = c.h;
    k.kv_heads = c.g;
    k.head_dim = c.d;
    k.batch = c.b;
    k.causal = c.causal;
    k.seq = 2LL * c.cp * 64;   // S = 128 * cp tokens
    return testing::make_scenario(k);
  }
};

TEST_P(Accounting, AttentionFlopsAreTheExactIdealShareOnEveryRank) {
  const Case& c = GetParam();
  const Scenario s = scenario();
  const TaskGraph g = build_task_graph(s, RankLayout::from_scenario(s), GraphOptions{});
  const double S = static_cast<double>(s.model.seq_length);
  const double pairs = c.causal ? S * (S + 1) / 2 : S * S;   // (q,k) pairs of the whole sequence
  const double fwd_total = 2.0 * c.b * c.h * (2.0 * c.d) * pairs;
  const double bwd_total = 2.0 * c.b * c.h * (5.0 * c.d) * pairs;
  const int W = c.tp * c.cp;
  for (int r = 0; r < W; ++r) {
    auto fwd = testing::sum_over(g, [&](const Task& t) { return t.rank == r && t.kind == TaskKind::AttentionForward; },
                                 [](const Task& t) { return t.flops; });
    auto bwd = testing::sum_over(g, [&](const Task& t) { return t.rank == r && t.kind == TaskKind::AttentionBackward; },
                                 [](const Task& t) { return t.flops; });
    EXPECT_NEAR(fwd / (fwd_total / W), 1.0, 1e-12) << "rank " << r;
    EXPECT_NEAR(bwd / (bwd_total / W), 1.0, 1e-12) << "rank " << r;
  }
}

TEST_P(Accounting, BytesPerRankAndStepCounts) {
  const Case& c = GetParam();
  const Scenario s = scenario();
  const RankLayout lay = RankLayout::from_scenario(s);
  const TaskGraph g = build_task_graph(s, lay, GraphOptions{});
  const double e = 2, sl = static_cast<double>(s.model.seq_length) / c.cp;
  const int h_t = c.h / c.tp, g_t = c.g >= c.tp ? c.g / c.tp : 1;
  const double Tq = c.b * sl * h_t * c.d * e, Tk = c.b * sl * g_t * c.d * e;   // T_v = T_k, T_o = T_q
  // effective a2a degree and ring size (a2a+p2p falls back when a level has size 1)
  int A = 1, P = 1;
  if (c.type == CpCommType::A2A) A = c.cp;
  if (c.type == CpCommType::P2P) P = c.cp;
  if (c.type == CpCommType::A2AP2P) A = c.hcp[0], P = c.hcp[1];
  const double m_kv = c.b * sl * g_t * (2.0 * c.d) * e;
  for (int r = 0; r < c.tp * c.cp; ++r) {
    auto sent = [&](TaskKind k, Pass p) {
      return testing::sum_over(g, [&](const Task& t) { return t.rank == r && t.kind == k && t.pass == p; },
                               [](const Task& t) { return t.bytes; });
    };
    auto count = [&](TaskKind k, Pass p) {
      return testing::count_if(g, [&](const Task& t) { return t.rank == r && t.kind == k && t.pass == p; });
    };
    if (c.type == CpCommType::AllGather) {
      EXPECT_DOUBLE_EQ(sent(TaskKind::AllGather, Pass::Forward), (c.cp - 1) * 2 * Tk);
      EXPECT_DOUBLE_EQ(sent(TaskKind::AllGather, Pass::Backward), (c.cp - 1) * 2 * Tk);
      EXPECT_DOUBLE_EQ(sent(TaskKind::ReduceScatter, Pass::Backward), (c.cp - 1) * 2 * Tk);
      EXPECT_EQ(count(TaskKind::AttentionForward, Pass::Forward), 2);
      EXPECT_EQ(count(TaskKind::AttentionBackward, Pass::Backward), 2);
      continue;
    }
    EXPECT_DOUBLE_EQ(sent(TaskKind::AllToAll, Pass::Forward), (A - 1.0) / A * (Tq + Tk + Tk + Tq));
    EXPECT_DOUBLE_EQ(sent(TaskKind::AllToAll, Pass::Backward), (A - 1.0) / A * (Tq + Tq + Tk + Tk));
    EXPECT_EQ(count(TaskKind::AllToAll, Pass::Forward), A > 1 ? 4 : 0);
    EXPECT_EQ(count(TaskKind::AllToAll, Pass::Backward), A > 1 ? 4 : 0);
    EXPECT_DOUBLE_EQ(sent(TaskKind::SendRecv, Pass::Forward), (P - 1) * m_kv);
    EXPECT_DOUBLE_EQ(sent(TaskKind::SendRecv, Pass::Backward), P > 1 ? 2 * (P - 1) * m_kv : 0.0);
    EXPECT_EQ(count(TaskKind::AttentionForward, Pass::Forward), P);
    EXPECT_EQ(count(TaskKind::AttentionBackward, Pass::Backward), P);
    // backward per-step message sizes: M_kv, 2 M_kv ..., M_kv
    for (const Task& t : g.tasks())
      if (t.rank == r && t.kind == TaskKind::SendRecv && t.pass == Pass::Backward) {
        const double want = (t.step == 0 || t.step == P - 1) ? m_kv : 2 * m_kv;
        EXPECT_DOUBLE_EQ(t.bytes, want) << "step " << t.step;
      }
    // each a2a call: bytes_per_rank = T, task sends (A-1)/A of it
    for (const Task& t : g.tasks())
      if (t.rank == r && t.kind == TaskKind::AllToAll) {
        const CommOp& op = g.comms()[t.comm];
        EXPECT_EQ(static_cast<int>(op.ranks.size()), A);
        EXPECT_DOUBLE_EQ(t.bytes, op.bytes_per_rank * (A - 1) / A);
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, Accounting, ::testing::ValuesIn(cases()),
                         [](const auto& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace hcpsim
