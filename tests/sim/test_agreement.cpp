// simgrid vs analytic on contention-free scenarios built by the real schedule builders: every task's
// end time and the makespan agree within 0.1 %. "Contention-free": every flow has its own GPU port
// and NIC (nics_per_node = gpus_per_node, oversubscription 1), forward passes where the schedules
// send one message per link direction at a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/analytic/analytic_backend.h"
#include "engine/layout/rank_layout.h"
#include "engine/schedule/build.h"
#include "sim/simgrid_backend.h"
#include "sim_test_util.h"

namespace hcpsim::sim::testing {
namespace {

struct Case {
  std::string name;
  CpCommType mode;
  int nodes, gpus_per_node, tp, cp;
  std::vector<int> hcp;
  MaskType mask = MaskType::Causal;
  bool backward = false;
  std::int64_t seq = 16384;
  std::vector<Fault> faults = {};
  int ffn = 0;   // > 0: whole layer (GEMMs and TP collectives around attention)
};

Scenario make(const Case& c) {
  Scenario s;
  s.name = c.name;
  s.cluster.nodes = c.nodes;
  s.cluster.gpus_per_node = c.gpus_per_node;
  s.cluster.nics_per_node = c.gpus_per_node;
  s.model.num_layers = 1;
  s.model.hidden_size = 4096;
  s.model.num_attention_heads = 32;
  s.model.num_query_groups = 32;
  s.model.seq_length = c.seq;
  s.model.attn_mask_type = c.mask;
  s.model.tensor_model_parallel_size = c.tp;
  s.model.context_parallel_size = c.cp;
  s.model.cp_comm_type = {c.mode};
  s.model.hierarchical_context_parallel_sizes = c.hcp;
  s.simulation.forward = true;
  s.simulation.backward = c.backward;
  s.simulation.layers = 1;
  s.cluster.faults = c.faults;
  s.model.ffn_hidden_size = c.ffn;
  return s;
}

struct Times {
  std::vector<double> end_s;
  double makespan_s = 0;
};

Times run(Backend& b, const TaskGraph& g, const Scenario& s, const RankLayout& layout, const CostModel& cost) {
  RunContext ctx{s, layout, cost, {}};
  TraceCollector sink;
  b.run(g, ctx, sink);
  Times t;
  t.end_s.assign(g.size(), -1);
  for (const auto& e : sink.trace.events) {
    t.end_s.at(e.task) = e.end_s;
    t.makespan_s = std::max(t.makespan_s, e.end_s);
  }
  return t;
}

class Agreement : public ::testing::TestWithParam<Case> {};

TEST_P(Agreement, SimgridMatchesAnalyticWithinATenthOfAPercent) {
  const Case& c = GetParam();
  const Scenario s = make(c);
  const RankLayout layout = RankLayout::from_scenario(s);
  const TaskGraph g = build_task_graph(s, layout, graph_options_from(s));
  ASSERT_GT(g.size(), 0u);
  const CostModel cost(s);
  BackendRegistry reg;
  register_simgrid_backend(reg);
  auto sg = reg.create("simgrid");
  AnalyticBackend an;
  const Times a = run(an, g, s, layout, cost);
  const Times b = run(*sg, g, s, layout, cost);
  ASSERT_GT(a.makespan_s, 0);
  EXPECT_NEAR(b.makespan_s / a.makespan_s, 1.0, 1e-3) << c.name << " analytic " << a.makespan_s << " simgrid " << b.makespan_s;
  int worst = -1;
  double worst_diff = 0;
  for (TaskId t = 0; t < g.size(); ++t) {
    const double diff = std::abs(a.end_s[t] - b.end_s[t]);
    if (diff > worst_diff) {
      worst_diff = diff;
      worst = static_cast<int>(t);
    }
  }
  EXPECT_LE(worst_diff, 1e-3 * a.makespan_s)
      << c.name << ": task " << worst << " " << g.display_name(g.task(static_cast<TaskId>(worst))) << " analytic "
      << a.end_s[static_cast<std::size_t>(worst)] << " simgrid " << b.end_s[static_cast<std::size_t>(worst)];
}

const Case kCases[] = {
    // p2p ring
    {"p2p_cp8_intra", CpCommType::P2P, 1, 8, 1, 8, {}},
    {"p2p_cp4_intra_tp2", CpCommType::P2P, 1, 8, 2, 4, {}},
    {"p2p_cp8_intra_nomask", CpCommType::P2P, 1, 8, 1, 8, {}, MaskType::NoMask},
    {"p2p_cp16_inter", CpCommType::P2P, 2, 8, 1, 16, {}},
    {"p2p_cp4_inter_1gpu", CpCommType::P2P, 4, 1, 1, 4, {}},
    {"p2p_cp8_inter_tp2", CpCommType::P2P, 2, 8, 2, 8, {}},
    // a2a (Ulysses)
    {"a2a_cp8_intra", CpCommType::A2A, 1, 8, 1, 8, {}},
    {"a2a_cp4_intra_tp2", CpCommType::A2A, 1, 8, 2, 4, {}},
    {"a2a_cp16_inter", CpCommType::A2A, 2, 8, 1, 16, {}},
    {"a2a_cp4_inter_2gpu", CpCommType::A2A, 2, 2, 1, 4, {}},
    {"a2a_cp8_intra_nomask", CpCommType::A2A, 1, 8, 1, 8, {}, MaskType::NoMask},
    // all_gather
    {"ag_cp8_intra", CpCommType::AllGather, 1, 8, 1, 8, {}},
    {"ag_cp4_intra_tp2", CpCommType::AllGather, 1, 8, 2, 4, {}},
    {"ag_cp16_inter", CpCommType::AllGather, 2, 8, 1, 16, {}},
    {"ag_cp4_inter_1gpu", CpCommType::AllGather, 4, 1, 1, 4, {}},
    {"ag_cp8_intra_bwd", CpCommType::AllGather, 1, 8, 1, 8, {}, MaskType::Causal, true},
    // a2a+p2p
    {"hcp_4x2_intra", CpCommType::A2AP2P, 1, 8, 1, 8, {4, 2}},
    {"hcp_2x4_intra", CpCommType::A2AP2P, 1, 8, 1, 8, {2, 4}},
    {"hcp_8x2_inter", CpCommType::A2AP2P, 2, 8, 1, 16, {8, 2}},
    {"hcp_4x4_inter_tp2", CpCommType::A2AP2P, 4, 8, 2, 16, {4, 4}},
    {"hcp_2x2_inter_2gpu", CpCommType::A2AP2P, 2, 2, 1, 4, {2, 2}},
    {"hcp_4x2_intra_nomask", CpCommType::A2AP2P, 1, 8, 1, 8, {4, 2}, MaskType::NoMask},
    {"a2a_cp8_intra_bwd", CpCommType::A2A, 1, 8, 1, 8, {}, MaskType::Causal, true},
    {"p2p_cp8_intra_bwd", CpCommType::P2P, 1, 8, 1, 8, {}, MaskType::Causal, true},
    // whole layer: GEMMs and TP collectives (NCCL rings) around attention
    {"p2p_cp4_intra_tp2_layer", CpCommType::P2P, 1, 8, 2, 4, {}, MaskType::Causal, false, 16384, {}, 14336},
    {"hcp_2x2_inter_tp4_layer_bwd", CpCommType::A2AP2P, 4, 4, 4, 4, {2, 2}, MaskType::Causal, true, 16384, {},
     14336},
    // faults both backends model the same way while each NIC carries one flow at a time
    {"p2p_cp16_inter_straggler", CpCommType::P2P, 2, 8, 1, 16, {}, MaskType::Causal, false, 16384, {straggler(5, 1.5)}},
    {"a2a_cp16_inter_degraded_nic", CpCommType::A2A, 2, 8, 1, 16, {}, MaskType::Causal, false, 16384,
     {degraded_nic(1, 2, 0.5)}},
    {"p2p_cp16_inter_degraded_nic", CpCommType::P2P, 2, 8, 1, 16, {}, MaskType::Causal, false, 16384,
     {degraded_nic(0, 7, 0.25)}},
};

TEST(AgreementFaults, StragglerAndDegradedNicSlowTheSimgridRun) {
  // The fault cases above must not agree trivially: each is slower than the healthy scenario.
  BackendRegistry reg;
  register_simgrid_backend(reg);
  auto makespan = [&](const Case& c) {
    const Scenario s = make(c);
    const RankLayout layout = RankLayout::from_scenario(s);
    const TaskGraph g = build_task_graph(s, layout, graph_options_from(s));
    const CostModel cost(s);
    auto sg = reg.create("simgrid");
    return run(*sg, g, s, layout, cost).makespan_s;
  };
  // one node and a long sequence: attention compute, not the NVLink ring, sets the pace
  const Case compute_bound{"p2p", CpCommType::P2P, 1, 8, 1, 8, {}, MaskType::Causal, false, 131072};
  Case slow = compute_bound;
  slow.faults = {straggler(5, 2.0)};
  EXPECT_GT(makespan(slow), makespan(compute_bound) * 1.05);
  // two nodes: the NIC-bound ring is paced by its slowest hop
  const Case nic_bound{"p2p", CpCommType::P2P, 2, 8, 1, 16, {}};
  Case nic = nic_bound;
  nic.faults = {degraded_nic(0, 7, 0.25)};
  EXPECT_GT(makespan(nic), makespan(nic_bound) * 1.05);
}

INSTANTIATE_TEST_SUITE_P(Sim, Agreement, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

}  // namespace
}  // namespace hcpsim::sim::testing
