// Cross-check: the ring-step teaching model and the engine's schedule builders agree on which K/V
// source and which mask section every forward attention kernel of every rank uses at every step.
#include <gtest/gtest.h>

#include "engine/layout/rank_layout.h"
#include "engine/schedule/build.h"
#include "gui/models/ring_steps.h"

using namespace hcpsim;
using namespace hcpsim::gui;

namespace {

Scenario scenario(int cp, CpCommType type, std::vector<int> hcp, bool causal) {
  Scenario s;
  s.name = "ring-vs-graph";
  s.model.num_layers = 1;
  s.model.hidden_size = 1024;
  s.model.num_attention_heads = 16;
  s.model.num_query_groups = 8;
  s.model.kv_channels = 64;
  s.model.seq_length = 2048 * cp;
  s.model.context_parallel_size = cp;
  s.model.cp_comm_type = {type};
  s.model.hierarchical_context_parallel_sizes = std::move(hcp);
  s.model.attn_mask_type = causal ? MaskType::Causal : MaskType::NoMask;
  s.cluster.nodes = 1;
  s.cluster.gpus_per_node = cp;
  return s;
}

struct Case {
  int cp;
  CpCommType type;
  std::vector<int> hcp;
  bool causal;
};

class RingVsGraph : public ::testing::TestWithParam<Case> {};

TEST_P(RingVsGraph, SourcesAndSectionsAgree) {
  const Case c = GetParam();
  const Scenario s = scenario(c.cp, c.type, c.hcp, c.causal);
  const RankLayout L = RankLayout::from_scenario(s);
  GraphOptions o;
  o.forward = true;
  o.backward = false;
  const TaskGraph g = build_task_graph(s, L, o);
  const RingStepModel m(RingStepModel::params_from(s));
  int checked = 0;
  for (const Task& t : g.tasks()) {
    if (t.kind != TaskKind::AttentionForward || t.attention == kNone || t.step < 0) continue;
    const AttentionShape& a = g.attention_of(t);
    const RankStep r = m.rank_step(L.coord(t.rank).cp, t.step);
    EXPECT_EQ(a.kv_source, r.kv_source) << "rank " << t.rank << " step " << t.step;
    EXPECT_EQ(a.section, r.section) << "rank " << t.rank << " step " << t.step;
    ++checked;
  }
  // One kernel per rank and ring step.
  EXPECT_EQ(checked, c.cp * m.step_count());
}

INSTANTIATE_TEST_SUITE_P(Schedules, RingVsGraph,
                         ::testing::Values(Case{4, CpCommType::P2P, {}, true}, Case{8, CpCommType::P2P, {}, true},
                                           Case{4, CpCommType::P2P, {}, false},
                                           Case{4, CpCommType::A2AP2P, {2, 2}, true},
                                           Case{8, CpCommType::A2AP2P, {2, 4}, true},
                                           Case{8, CpCommType::A2AP2P, {4, 2}, true}));

}  // namespace
