// HyperParallel step model against the engine's task graph, for every mode of scenarios/hp-*.yaml:
// every task of the shown CP group is in exactly one step, the groups and messages are the graph's
// CommOps, and each mode has the collectives HyperParallel's design prescribes.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "gui/models/hp_steps.h"
#include "hp_step_scenarios.h"

using namespace hcpsim;
using namespace hcpsim::gui;
using namespace hcpsim::gui::test;

namespace {

bool in_group(const HpStepModel& m, int rank) {
  return std::find(m.cp_ranks().begin(), m.cp_ranks().end(), rank) != m.cp_ranks().end();
}

std::vector<const HpStep*> comm_steps(const HpStepModel& m, Pass pass, TaskKind kind) {
  std::vector<const HpStep*> out;
  for (const HpStep& s : m.steps())
    if (s.communication && s.pass == pass && s.kind == kind) out.push_back(&s);
  return out;
}

const HpStep* find_step(const HpStepModel& m, const std::string& label, Pass pass = Pass::Forward) {
  for (const HpStep& s : m.steps())
    if (s.label == label && s.pass == pass) return &s;
  return nullptr;
}

class HpStepsAllModes : public ::testing::TestWithParam<HpCase> {};

TEST_P(HpStepsAllModes, EveryTaskOfTheGroupInOneStep) {
  const HpStepModel m(load_hp_case(GetParam()));
  ASSERT_EQ(m.cp(), 8);
  std::size_t graph_tasks = 0;
  for (const Task& t : m.graph().tasks()) graph_tasks += in_group(m, t.rank) ? 1 : 0;
  std::set<TaskId> seen;
  for (const HpStep& s : m.steps())
    for (TaskId id : s.tasks) {
      if (id == kNone) continue;
      EXPECT_TRUE(seen.insert(id).second) << "task " << id << " in two steps";
      EXPECT_EQ(std::string(m.graph().label(m.graph().task(id))), s.label);
      EXPECT_EQ(m.graph().task(id).pass, s.pass);
    }
  EXPECT_EQ(seen.size(), graph_tasks);
  EXPECT_GT(m.forward_steps(), 0);
  EXPECT_LT(m.forward_steps(), m.step_count());
}

TEST_P(HpStepsAllModes, GroupsAndMessagesAreTheGraphs) {
  const HpStepModel m(load_hp_case(GetParam()));
  std::size_t ops = 0, messages = 0;
  for (const CommOp& c : m.graph().comms()) {
    std::size_t members = 0;
    for (int r : c.ranks) members += in_group(m, r) ? 1 : 0;
    if (members == 0) continue;
    ++ops;
    if (c.kind == TaskKind::SendRecv) {
      for (const Transfer& x : c.transfers) messages += x.src != x.dst && in_group(m, x.src) && in_group(m, x.dst);
    } else {
      messages += members * (members - 1);
    }
  }
  std::size_t groups = 0, drawn_messages = 0;
  for (const HpStep& s : m.steps()) {
    groups += s.groups.size();
    drawn_messages += s.messages.size();
    if (!s.communication) {
      EXPECT_TRUE(s.groups.empty() && s.messages.empty()) << s.label;
    }
  }
  EXPECT_GT(ops, 0u);
  EXPECT_EQ(groups, ops);
  EXPECT_EQ(drawn_messages, messages);
}

INSTANTIATE_TEST_SUITE_P(Modes, HpStepsAllModes, ::testing::ValuesIn(hp_cases()),
                         [](const auto& i) { return i.param.name; });

TEST(HpSteps, PureUlyssesIsFourAllToAllsOverTheWholeGroup) {
  const HpStepModel m(load_hp_case(hp_case("ulysses")));
  EXPECT_EQ(m.ulysses(), 8);
  EXPECT_EQ(m.colossal(), 1);
  const auto a2a = comm_steps(m, Pass::Forward, TaskKind::AllToAll);
  ASSERT_EQ(a2a.size(), 4u);   // q, k, v to heads; o back
  for (const HpStep* s : a2a) {
    EXPECT_EQ(s->group, GroupKind::HP_ULYSSES);
    ASSERT_EQ(s->groups.size(), 1u);
    EXPECT_EQ(s->groups[0].size(), 8u);
    EXPECT_EQ(s->messages.size(), 56u);
  }
  EXPECT_TRUE(comm_steps(m, Pass::Forward, TaskKind::AllGather).empty());
  EXPECT_TRUE(comm_steps(m, Pass::Backward, TaskKind::ReduceScatter).empty());
}

TEST(HpSteps, PureColossalGathersKAndVAcrossTheGroup) {
  const HpStepModel m(load_hp_case(hp_case("colossal")));
  EXPECT_EQ(m.colossal(), 8);
  EXPECT_TRUE(comm_steps(m, Pass::Forward, TaskKind::AllToAll).empty());
  const auto ag = comm_steps(m, Pass::Forward, TaskKind::AllGather);
  ASSERT_EQ(ag.size(), 2u);
  EXPECT_EQ(ag[0]->label, "all_gather_k");
  EXPECT_EQ(ag[1]->label, "all_gather_v");
  for (const HpStep* s : ag) {
    EXPECT_EQ(s->group, GroupKind::HP_COLOSSAL);
    ASSERT_EQ(s->groups.size(), 1u);
    EXPECT_EQ(s->groups[0].size(), 8u);
  }
  EXPECT_EQ(comm_steps(m, Pass::Backward, TaskKind::ReduceScatter).size(), 2u);   // dK, dV
  // Contiguous shards: CP index i attends to the K/V prefix [0, (i+1)*s) (causal).
  const HpStep* attn = find_step(m, "attn");
  ASSERT_NE(attn, nullptr);
  const int si = static_cast<int>(attn - m.steps().data());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(m.attention(si, i)->kv_len, (i + 1) * 131072 / 8);
}

TEST(HpSteps, HybridAllToAllInRowsAllGatherInColumns) {
  const HpStepModel m(load_hp_case(hp_case("hybrid")));
  ASSERT_EQ(m.ulysses(), 2);
  ASSERT_EQ(m.colossal(), 4);
  const auto a2a = comm_steps(m, Pass::Forward, TaskKind::AllToAll);
  const auto ag = comm_steps(m, Pass::Forward, TaskKind::AllGather);
  ASSERT_EQ(a2a.size(), 4u);
  ASSERT_EQ(ag.size(), 2u);
  for (const HpStep* s : a2a) {
    ASSERT_EQ(s->groups.size(), 4u);   // one all-to-all per Colossal row
    for (const auto& g : s->groups) {
      ASSERT_EQ(g.size(), 2u);
      EXPECT_EQ(m.co_index(g[0]), m.co_index(g[1]));
    }
  }
  for (const HpStep* s : ag) {
    ASSERT_EQ(s->groups.size(), 2u);   // one all-gather per Ulysses column
    for (const auto& g : s->groups) {
      ASSERT_EQ(g.size(), 4u);
      for (int i : g) EXPECT_EQ(m.ds_index(i), m.ds_index(g[0]));
    }
  }
}

TEST(HpSteps, LoadBalanceExchangesHalvesWithThePeer) {
  const HpStepModel m(load_hp_case(hp_case("load_balance")));
  const auto p2p = comm_steps(m, Pass::Forward, TaskKind::SendRecv);
  ASSERT_EQ(p2p.size(), 2u);   // the Q tail out, the output back
  for (const HpStep* s : p2p) {
    ASSERT_EQ(s->messages.size(), 8u);
    for (const HpMessage& msg : s->messages) EXPECT_EQ(msg.to, 7 - msg.from);
  }
  int attn = 0;
  for (const HpStep& s : m.steps()) attn += s.pass == Pass::Forward && s.kind == TaskKind::AttentionForward;
  EXPECT_EQ(attn, 2);   // attention twice
}

TEST(HpSteps, AsyncAllToAllsOverlapTheLaterProjections) {
  const HpStepModel async(load_hp_case(hp_case("async")));
  const HpStep* q = find_step(async, "a2a_q");
  const HpStep* v = find_step(async, "a2a_v");
  ASSERT_NE(q, nullptr);
  ASSERT_NE(v, nullptr);
  // a2a_q runs under the K and V projections and the head split copies of their outputs.
  EXPECT_EQ(q->overlaps, (std::vector<std::string>{"k_proj", "perm_k", "v_proj", "perm_v"}));
  EXPECT_TRUE(v->overlaps.empty());   // nothing left to hide it behind
  // The same mode synchronous: no projection in the graph, nothing overlaps.
  HpCase sync = hp_case("async");
  sync.overrides.push_back("hyperparallel.style=ContextParallel");
  const HpStepModel s(load_hp_case(sync));
  EXPECT_EQ(find_step(s, "k_proj"), nullptr);
  for (const HpStep& st : s.steps()) EXPECT_TRUE(st.overlaps.empty()) << st.label;
}

TEST(HpSteps, DsaGathersTheKeySideAndRunsTheIndexer) {
  const HpStepModel m(load_hp_case(hp_case("dsa")));
  std::vector<std::string> gathers;
  for (const HpStep* s : comm_steps(m, Pass::Forward, TaskKind::AllGather)) gathers.push_back(s->label);
  EXPECT_EQ(gathers, (std::vector<std::string>{"all_gather_k", "all_gather_v", "all_gather_index_k"}));
  const HpStep* idx = find_step(m, "indexer");
  const HpStep* attn = find_step(m, "attn");
  ASSERT_NE(idx, nullptr);
  ASSERT_NE(attn, nullptr);
  EXPECT_LT(idx, attn);   // top-k before the sparse attention
  EXPECT_NE(find_step(m, "indexer_loss"), nullptr);
  EXPECT_NE(find_step(m, "reduce_scatter_dindex_k", Pass::Backward), nullptr);
}

TEST(HpSteps, AsyncDsaGathersRunUnderTheLaterProjections) {
  const HpStepModel m(load_hp_case(hp_case("async_dsa")));
  const HpStep* k = find_step(m, "all_gather_k");
  const HpStep* v = find_step(m, "all_gather_v");
  ASSERT_NE(k, nullptr);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(k->overlaps, (std::vector<std::string>{"v_proj", "index_k_proj"}));
  EXPECT_EQ(v->overlaps, (std::vector<std::string>{"index_k_proj"}));
  // Synchronous DSA: nothing overlaps in forward (in backward the index key's reduce-scatter runs
  // under attn_bwd, in both styles).
  const HpStepModel sync(load_hp_case(hp_case("dsa")));
  for (const HpStep& s : sync.steps()) {
    if (s.pass == Pass::Forward) {
      EXPECT_TRUE(s.overlaps.empty()) << s.label;
    }
  }
  const HpStep* rs = find_step(sync, "reduce_scatter_dindex_k", Pass::Backward);
  ASSERT_NE(rs, nullptr);
  EXPECT_NE(std::find(rs->overlaps.begin(), rs->overlaps.end(), "attn_bwd"), rs->overlaps.end());
}

TEST(HpSteps, RefusesAMegatronScenario) {
  HpCase c = hp_case("hybrid");
  Scenario s = load_hp_case(c);
  s.hyperparallel.enabled = false;
  EXPECT_THROW(HpStepModel{s}, std::invalid_argument);
}

}  // namespace
