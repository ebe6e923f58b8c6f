// Graph structure: acyclic, stream order, the section table and ring peers of docs/schedules.md, the
// dependency facts of its p2p ring, layer chaining, per-layer comm types, input errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "engine/layout/rank_layout.h"
#include "engine/schedule/build.h"
#include "tests/graph/scenario_fixture.h"

namespace hcpsim {
namespace {

TaskGraph build(const Scenario& s, GraphOptions o = {}) {
  o.layers = std::max(o.layers, s.simulation.layers);
  return build_task_graph(s, RankLayout::from_scenario(s), o);
}

bool has_dep(const TaskGraph& g, TaskId before, TaskId after) {
  for (TaskId d : g.deps(after))
    if (d == before) return true;
  return false;
}

// The task of `rank` with this label, pass and step (layer 0); kNone if absent.
TaskId find(const TaskGraph& g, int rank, const std::string& label, Pass p, int step) {
  for (const Task& t : g.tasks())
    if (t.rank == rank && t.pass == p && t.step == step && t.layer == 0 && g.label(t) == label) return g.id_of(t);
  return kNone;
}

testing::Config hcp_2x4() {
  testing::Config k;
  k.tp = 2;
  k.cp = 8;
  k.hcp = {2, 4};
  k.types = {CpCommType::A2AP2P};
  k.heads = 8;
  k.kv_heads = 4;
  return k;
}

// hcp_2x4's cluster with another comm type and 32 heads / 16 KV heads (enough for every mode).
testing::Config every_mode_config(CpCommType t, int layers) {
  testing::Config k = hcp_2x4();
  k.types = {t};
  k.layers = layers;
  k.heads = 32;
  k.kv_heads = 16;
  return k;
}

TEST(GraphStructure, EveryModeIsAcyclicAndKeepsStreamOrder) {
  for (CpCommType t : {CpCommType::P2P, CpCommType::A2A, CpCommType::AllGather, CpCommType::A2AP2P}) {
    const TaskGraph g = build(testing::make_scenario(every_mode_config(t, 3)));
    EXPECT_EQ(g.topological_order().size(), g.size()) << to_string(t);
    std::map<std::pair<int, int>, TaskId> last;
    for (const Task& task : g.tasks()) {
      const auto key = std::make_pair(task.rank, static_cast<int>(task.stream));
      auto it = last.find(key);
      if (it != last.end()) { EXPECT_TRUE(has_dep(g, it->second, g.id_of(task))) << to_string(t) << " " << g.display_name(task); }
      last[key] = g.id_of(task);
    }
  }
}

// Ancestors of `t` (all tasks it transitively waits for).
std::vector<bool> ancestors(const TaskGraph& g, TaskId t) {
  std::vector<bool> seen(g.size(), false);
  std::vector<TaskId> stack{t};
  while (!stack.empty()) {
    const TaskId x = stack.back();
    stack.pop_back();
    for (TaskId d : g.deps(x))
      if (!seen[d]) {
        seen[d] = true;
        stack.push_back(d);
      }
  }
  return seen;
}

TEST(GraphStructure, WholeLayerOpsWaitForAllOfAttention) {
  // The output projection (forward) and the QKV dgrad (backward) consume attention's result: on
  // every rank they must come after every earlier task of that rank in the layer and pass — the
  // cp stream's last kernel (all_gather, p2p), the output all-to-all (a2a, a2a+p2p), the last
  // gradient exchange. (A lost stream wait once let them overlap attention.)
  for (CpCommType t : {CpCommType::P2P, CpCommType::A2A, CpCommType::AllGather, CpCommType::A2AP2P}) {
    Scenario s = testing::make_scenario(every_mode_config(t, 1));
    s.model.ffn_hidden_size = 4 * s.model.hidden_size;
    GraphOptions o;
    o.whole_layer = true;
    o.backward = true;
    const TaskGraph g = build(s, o);
    for (Pass p : {Pass::Forward, Pass::Backward}) {
      const std::string first_post = p == Pass::Forward ? "out_proj" : "qkv_proj_dgrad";
      for (int rank = 0; rank < s.world_size(); ++rank) {
        const TaskId post = find(g, rank, first_post, p, -1);
        ASSERT_NE(post, kNone) << to_string(t) << " rank " << rank << " " << first_post;
        const auto before = ancestors(g, post);
        int checked = 0;
        for (TaskId x = 0; x < post; ++x) {
          const Task& task = g.task(x);
          if (task.rank != rank || task.pass != p || task.layer != 0) continue;
          EXPECT_TRUE(before[x]) << to_string(t) << ": " << first_post << " of rank " << rank
                                 << " does not wait for " << g.display_name(task);
          ++checked;
        }
        EXPECT_GT(checked, 3) << to_string(t);
      }
    }
  }
}

TEST(GraphStructure, SectionTableForP4MatchesSpec36) {
  // Section table of docs/schedules.md, (source, section) per step; u = upper, l = lower, d = diagonal
  const char* fwd[4] = {"0d 3u 2u 1u", "1d 0l 3u 2u", "2d 1l 0l 3u", "3d 2l 1l 0l"};
  const char* bwd[4] = {"1u 2u 3u 0d", "2u 3u 0l 1d", "3u 0l 1l 2d", "0l 1l 2l 3d"};
  const Scenario s = testing::make_scenario(hcp_2x4());
  const RankLayout lay = RankLayout::from_scenario(s);
  const TaskGraph g = build_task_graph(s, lay, GraphOptions{});
  auto code = [](MaskSection m) { return m == MaskSection::Diagonal ? 'd' : m == MaskSection::Lower ? 'l' : 'u'; };
  for (int rank = 0; rank < lay.world_size(); ++rank) {
    const int p = lay.coord(rank).ring;
    std::string f, b;
    for (const Task& t : g.tasks()) {
      if (t.rank != rank || t.attention == kNone) continue;
      const AttentionShape& a = g.attention_of(t);
      std::string& out = t.pass == Pass::Forward ? f : b;
      if (!out.empty()) out += ' ';
      out += std::to_string(a.kv_source);
      out += code(a.section);
    }
    EXPECT_EQ(f, fwd[p]) << "rank " << rank;
    EXPECT_EQ(b, bwd[p]) << "rank " << rank;
  }
}

TEST(GraphStructure, RingPeersFollowTransformerEngine) {
  const Scenario s = testing::make_scenario(hcp_2x4());
  const RankLayout lay = RankLayout::from_scenario(s);
  const TaskGraph g = build_task_graph(s, lay, GraphOptions{});
  int checked = 0;
  for (const CommOp& op : g.comms()) {
    if (op.kind != TaskKind::SendRecv) continue;
    EXPECT_EQ(op.group, GroupKind::HCP_P2P);
    const Pass p = g.task(op.tasks.front()).pass;
    for (const Transfer& x : op.transfers) {
      EXPECT_EQ(x.dst, p == Pass::Forward ? lay.ring_next(x.src) : lay.ring_prev(x.src));
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
  // docs/schedules.md "Rank layout" example: global rank 4 sends to 8 and receives from 0 in the forward ring
  EXPECT_EQ(lay.ring_next(4), 8);
  EXPECT_EQ(lay.ring_prev(4), 0);
}

TEST(GraphStructure, ForwardRingDependencyFacts) {
  testing::Config k;
  k.cp = 6;
  const TaskGraph g = build(testing::make_scenario(k));
  const int r = 3;
  for (int i = 0; i < 6; ++i) {
    const TaskId attn = find(g, r, "attn", Pass::Forward, i);
    ASSERT_NE(attn, kNone);
    EXPECT_EQ(g.task(attn).stream, i % 2 == 0 ? Stream::Main : Stream::Cp);
    if (i >= 1) { EXPECT_TRUE(has_dep(g, find(g, r, "send_recv_kv", Pass::Forward, i - 1), attn)) << i; }
    if (i >= 1 && i < 5) {
      const TaskId sr = find(g, r, "send_recv_kv", Pass::Forward, i);
      EXPECT_EQ(g.task(sr).stream, Stream::NcclP2P);
      EXPECT_TRUE(has_dep(g, find(g, r, "send_recv_kv", Pass::Forward, i - 1), sr));
      if (i >= 2) { EXPECT_TRUE(has_dep(g, find(g, r, "lse_merge", Pass::Forward, i - 2), sr)) << i; }
    }
    const TaskId merge = find(g, r, "lse_merge", Pass::Forward, i);
    EXPECT_TRUE(has_dep(g, attn, merge));
    if (i >= 1) { EXPECT_TRUE(has_dep(g, find(g, r, "lse_merge", Pass::Forward, i - 1), merge)); }
  }
}

TEST(GraphStructure, BackwardRingDependencyFacts) {
  testing::Config k;
  k.cp = 4;
  const TaskGraph g = build(testing::make_scenario(k));
  const int r = 1;
  for (int i = 0; i < 4; ++i) {
    const TaskId c = find(g, r, i == 0 ? "send_recv_kv" : i == 3 ? "send_recv_dkv" : "send_recv_kv_dkv", Pass::Backward, i);
    ASSERT_NE(c, kNone) << i;
    const TaskId add = find(g, r, "dkv_add", Pass::Backward, i);
    EXPECT_TRUE(has_dep(g, c, add));
    EXPECT_EQ(g.task(find(g, r, "attn_bwd", Pass::Backward, i)).stream, Stream::Main);
    if (i >= 1) { EXPECT_TRUE(has_dep(g, find(g, r, "dkv_add", Pass::Backward, i - 1), c)) << i; }
  }
}

TEST(GraphStructure, LayersChainAndBackwardFollowsAllForwards) {
  testing::Config k;
  k.cp = 4;
  k.hcp = {2, 2};
  k.layers = 3;
  k.heads = k.kv_heads = 4;
  k.types = {CpCommType::P2P, CpCommType::A2AP2P, CpCommType::A2A};
  const TaskGraph g = build(testing::make_scenario(k));
  // layer 0 is p2p (no a2a), layer 1 a2a+p2p (a2a on HCP_A2A), layer 2 a2a on the flat CP group
  for (const Task& t : g.tasks()) {
    if (t.kind != TaskKind::AllToAll) continue;
    EXPECT_NE(t.layer, 0);
    EXPECT_EQ(g.comms()[t.comm].group, t.layer == 1 ? GroupKind::HCP_A2A : GroupKind::CP);
    EXPECT_EQ(t.stream, t.layer == 1 ? Stream::NcclA2A : Stream::NcclCp);
  }
  // order of (layer, pass) blocks on rank 0's main stream: 0f 1f 2f 2b 1b 0b
  std::string seen;
  for (const Task& t : g.tasks()) {
    if (t.rank != 0 || t.stream != Stream::Main) continue;
    const std::string tag = std::to_string(t.layer) + (t.pass == Pass::Forward ? "f" : "b");
    if (seen.size() < tag.size() || seen.compare(seen.size() - tag.size(), tag.size(), tag) != 0) seen += tag;
  }
  EXPECT_EQ(seen, "0f1f2f2b1b0b");
  // graph ids are creation order, and every main task has its predecessor as a dependency (chained)
  EXPECT_EQ(g.topological_order().size(), g.size());
}

TEST(GraphStructure, A2AExchangeIsPipelinedAsInTE) {
  testing::Config k;
  k.cp = 4;
  k.types = {CpCommType::A2A};
  k.heads = k.kv_heads = 4;
  const TaskGraph g = build(testing::make_scenario(k), GraphOptions{true, false});
  std::string order;
  for (const Task& t : g.tasks())
    if (t.rank == 2) order += (order.empty() ? "" : " ") + std::string(g.label(t));
  EXPECT_EQ(order, "perm_q a2a_q perm_k a2a_k reord_q perm_v a2a_v reord_k reord_v attn perm_o a2a_o reord_o");
  const TaskId rq = find(g, 2, "reord_q", Pass::Forward, -1);
  EXPECT_EQ(g.task(rq).stream, Stream::Cp);
  EXPECT_TRUE(has_dep(g, find(g, 2, "a2a_q", Pass::Forward, -1), rq));
  EXPECT_TRUE(has_dep(g, find(g, 2, "reord_v", Pass::Forward, -1), find(g, 2, "attn", Pass::Forward, -1)));
}

TEST(GraphStructure, InvalidInputsNameTheField) {
  testing::Config k;
  k.cp = 4;
  k.seq = 20;   // not a multiple of 2*cp
  try {
    build(testing::make_scenario(k));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("seq_length"), std::string::npos) << e.what();
  }
  k.seq = 0;
  GraphOptions o;
  o.layers = 0;
  const Scenario s = testing::make_scenario(k);
  EXPECT_THROW(build_task_graph(s, RankLayout::from_scenario(s), o), std::invalid_argument);
}

}  // namespace
}  // namespace hcpsim
