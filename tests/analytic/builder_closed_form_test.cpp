// Closed forms on graphs from the real schedule builders (build_task_graph). Each expected time
// is derived here from the message sizes of docs/schedules.md and the cost formulas of docs/metrics.md.
#include <gtest/gtest.h>

#include <map>

#include "engine/cost/route.h"
#include "engine/schedule/build.h"
#include "tests/analytic/run_helpers.h"
#include "tests/cost/test_scenario.h"

namespace hcpsim {
namespace {

Scenario cp_scenario(int nodes, int gpn, int cp, CpCommType type, std::int64_t S) {
  Scenario s = test::dgx_scenario(nodes, gpn);
  s.model.context_parallel_size = cp;
  s.model.cp_comm_type = {type};
  s.model.seq_length = S;
  s.model.num_attention_heads = 8;
  s.model.num_query_groups = 8;
  s.model.hidden_size = 1024;   // head dim 128
  return s;
}

TaskGraph forward_graph(const Scenario& s) {
  GraphOptions o;
  o.backward = false;
  return build_task_graph(s, RankLayout::from_scenario(s), o);
}

// Cost of the single task of `rank` with this display-name suffix.
double task_s(const TaskGraph& g, const CostModel& cm, int rank, const std::string& name) {
  for (const Task& t : g.tasks())
    if (t.rank == rank && g.display_name(t) == name) return cm.compute_seconds(g, t);
  ADD_FAILURE() << "no task " << name << " on rank " << rank;
  return 0;
}

double link_s(double bytes, bool inter) {
  const double bw = inter ? 50e9 : 450e9, plateau = inter ? 0.94 : 0.82;
  const double half = inter ? 256.0 * 1024 : 1024.0 * 1024;
  return (inter ? 5e-6 : 2e-6) + bytes / (bw * plateau * bytes / (bytes + half));
}

TEST(BuilderClosedForm, P2pRingCommunicationDominant) {
  // One GPU per node: every ring hop crosses the NIC. Short sequence: tiny kernels, big transfers.
  for (const int P : {2, 4, 8}) {
    const std::int64_t S = 16384;
    const Scenario s = cp_scenario(P, 1, P, CpCommType::P2P, S);
    const TaskGraph g = forward_graph(s);
    const CostModel cm(s);
    const auto r = test::run_analytic(g, s);
    // M_kv = b * (S/cp) * g_t * (d_qk + d_v) * e.
    const double m_kv = 1.0 * (S / P) * 8 * (128 + 128) * 2;
    const double x = link_s(m_kv, true);
    double expected = 0;
    for (int rank = 0; rank < P; ++rank) {
      const std::string last = "L0.fwd.s" + std::to_string(P - 1);
      const double tail = task_s(g, cm, rank, last + ".attn") + task_s(g, cm, rank, last + ".lse_merge") +
                          task_s(g, cm, rank, "L0.fwd.out_corr");
      ASSERT_LT(tail, x);
      expected = std::max(expected, task_s(g, cm, rank, "L0.fwd.kv_concat") + (P - 1) * x + tail);
    }
    EXPECT_NEAR(r.makespan_s, expected, expected * 0.01) << "P=" << P;
    EXPECT_NEAR(r.makespan_s, expected, expected * 1e-9) << "P=" << P;   // exact in this model
  }
}

TEST(BuilderClosedForm, P2pRingComputeDominant) {
  for (const int P : {2, 4, 8}) {
    const std::int64_t S = 131072;
    const Scenario s = cp_scenario(1, 8, P, CpCommType::P2P, S);
    Scenario one_node = s;
    one_node.cluster.gpus_per_node = P;
    one_node.cluster.nics_per_node = P;
    const TaskGraph g = forward_graph(one_node);
    const CostModel cm(one_node);
    const auto r = test::run_analytic(g, one_node);
    double expected = 0;
    for (int rank = 0; rank < P; ++rank) {
      // The GPU never idles after the KV concat: every kernel of the rank back to back.
      double work = 0;
      for (const Task& t : g.tasks())
        if (t.rank == rank && !is_communication(t.kind)) work += cm.compute_seconds(g, t);
      expected = std::max(expected, work);
    }
    const double m_kv = 1.0 * (S / P) * 8 * 256 * 2;
    ASSERT_LT(link_s(m_kv, false), 0.5 * expected / P);   // really compute dominant
    EXPECT_NEAR(r.makespan_s, expected, expected * 0.01) << "P=" << P;
  }
}

TEST(BuilderClosedForm, UlyssesA2aIsPortBound) {
  for (const int A : {2, 4, 8}) {
    const std::int64_t S = 16384;
    Scenario s = cp_scenario(1, A, A, CpCommType::A2A, S);
    const TaskGraph g = forward_graph(s);
    const CostModel cm(s);
    const auto r = test::run_analytic(g, s);
    // T_q = T_k = T_v = T_o = b * s * h_t * d * e (MHA); each a2a sends (A-1)/A of it through the port.
    const double T = 1.0 * (S / A) * 8 * 128 * 2;
    const double X = 2e-6 + (A - 1.0) / A * T / (450e9 * 0.82 * (T / A) / (T / A + 1024.0 * 1024));
    for (const auto& op : g.comms())
      if (op.kind == TaskKind::AllToAll) {
        EXPECT_DOUBLE_EQ(op.bytes_per_rank, T);
      }
    // Non-overlapped parts: Perm_Q before the first a2a; Reord_V, attention, Perm_O after the last
    // input a2a; Reord_O after A2A_O. The other copies hide under the a2a's.
    const double exposed = task_s(g, cm, 0, "L0.fwd.perm_q") + task_s(g, cm, 0, "L0.fwd.reord_v") +
                           task_s(g, cm, 0, "L0.fwd.attn") + task_s(g, cm, 0, "L0.fwd.perm_o") +
                           task_s(g, cm, 0, "L0.fwd.reord_o");
    const double expected = 4 * X + exposed;
    EXPECT_NEAR(r.makespan_s, expected, expected * 0.01) << "A=" << A;
  }
}

}  // namespace
}  // namespace hcpsim
