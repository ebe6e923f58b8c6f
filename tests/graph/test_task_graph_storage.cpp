// The storage rules of TaskGraph: ids are indices, duplicate edges vanish whatever order they are
// added in, the in-edge view agrees with the out-edge view, and interned labels never mix up.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>

#include "engine/graph/task_graph.h"

namespace hcpsim {
namespace {

TaskGraph chain_graph(int n) {
  TaskGraph g;
  for (int i = 0; i < n; ++i) {
    Task t;
    t.rank = i % 4;
    g.add_task(t, "t");
  }
  return g;
}

std::set<std::pair<TaskId, TaskId>> edge_set(const TaskGraph& g) {
  std::set<std::pair<TaskId, TaskId>> out;
  for (TaskId v = 0; v < g.size(); ++v)
    for (TaskId s : g.successors(v)) out.emplace(v, s);
  return out;
}

TEST(TaskGraphStorage, IdsAreIndicesAndCopiesAreRefused) {
  TaskGraph g = chain_graph(5);
  for (TaskId i = 0; i < g.size(); ++i) EXPECT_EQ(g.id_of(g.task(i)), i);
  const Task copy = g.task(3);
  EXPECT_THROW(g.id_of(copy), std::logic_error);
}

TEST(TaskGraphStorage, DuplicateEdgesAreDroppedInTargetOrderAndOutOfOrder) {
  // In target order (the builders' way): duplicates are caught as they arrive.
  TaskGraph a = chain_graph(6);
  a.add_dep(0, 2);
  a.add_dep(1, 2);
  a.add_dep(0, 2);
  a.add_dep(2, 5);
  a.add_dep(2, 5);
  EXPECT_EQ(a.edge_count(), 3u);
  // Out of order: finalize() sorts and deduplicates.
  TaskGraph b = chain_graph(6);
  b.add_dep(2, 5);
  b.add_dep(0, 2);
  b.add_dep(2, 5);
  b.add_dep(1, 2);
  b.add_dep(0, 2);
  EXPECT_EQ(b.edge_count(), 3u);
  EXPECT_EQ(edge_set(a), edge_set(b));
  // Adding after a query merges with the edges already built.
  b.add_dep(1, 2);
  b.add_dep(3, 4);
  EXPECT_EQ(b.edge_count(), 4u);
  EXPECT_EQ(b.deps(4), std::vector<TaskId>{3});
}

TEST(TaskGraphStorage, InEdgesAgreeWithOutEdgesOnARandomGraph) {
  std::mt19937 rng(7);
  TaskGraph g = chain_graph(300);
  std::set<std::pair<TaskId, TaskId>> expected;
  for (int k = 0; k < 2000; ++k) {
    TaskId x = rng() % 300, y = rng() % 300;
    if (x == y) continue;
    if (x > y) std::swap(x, y);
    g.add_dep(x, y);
    expected.emplace(x, y);
  }
  EXPECT_EQ(edge_set(g), expected);
  const std::vector<std::uint32_t> indeg = g.in_degrees();
  for (TaskId v = 0; v < g.size(); ++v) {
    std::vector<TaskId> want;
    for (const auto& [s, t] : expected)
      if (t == v) want.push_back(s);
    std::vector<TaskId> got = g.deps(v);
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, want) << "task " << v;
    EXPECT_EQ(indeg[v], want.size());
    EXPECT_EQ(g.in_degree(v), want.size());
  }
  EXPECT_EQ(g.topological_order().size(), g.size());
}

TEST(TaskGraphStorage, LabelsFromAReusedBufferStayDistinct) {
  TaskGraph g;
  std::string buf = "perm_q";
  const TaskId a = g.add_task(Task{}, buf);
  buf[5] = 'k';   // same address, other text
  const TaskId b = g.add_task(Task{}, buf);
  const TaskId c = g.add_task(Task{}, "perm_q");
  EXPECT_EQ(g.label(g.task(a)), "perm_q");
  EXPECT_EQ(g.label(g.task(b)), "perm_k");
  EXPECT_EQ(g.label(g.task(c)), "perm_q");
  EXPECT_EQ(g.task(a).label, g.task(c).label);
}

TEST(TaskGraphStorage, IdenticalAttentionShapesShareOneEntry) {
  TaskGraph g;
  AttentionShape s;
  s.q_len = s.kv_len = 1024;
  s.heads = 8;
  s.kv_heads = 1;
  s.head_dim_qk = s.head_dim_v = 128;
  s.pairs = 1024.0 * 1024;
  const auto i = g.add_attention(s);
  EXPECT_EQ(g.add_attention(s), i);
  s.kv_source = 3;
  const auto j = g.add_attention(s);
  EXPECT_NE(j, i);
  s.kv_source = -1;
  s.section = MaskSection::Lower;
  EXPECT_NE(g.add_attention(s), i);
  EXPECT_EQ(g.attention_shapes().size(), 3u);
}

TEST(TaskGraphStorage, CopiesKeepEdgesAndPayloads) {
  TaskGraph g = chain_graph(4);
  g.add_dep(0, 1);
  g.add_dep(1, 3);
  g.set_payload(2, g.add_payload(TaskPayload{}));
  const TaskGraph c = g;
  EXPECT_EQ(edge_set(c), edge_set(g));
  EXPECT_EQ(c.payload_of(2), 0u);
  EXPECT_EQ(c.payload_of(1), kNone);
  EXPECT_EQ(c.deps(3), std::vector<TaskId>{1});
}

// A task added by label and filled in place equals one added as a whole Task, label included.
TEST(TaskGraphStorage, TasksFilledInPlaceEqualTasksAddedWhole) {
  Task whole;
  whole.rank = 3;
  whole.kind = TaskKind::SendRecv;
  whole.stream = Stream::NcclP2P;
  whole.pass = Pass::Backward;
  whole.layer = 2;
  whole.step = 5;
  whole.bytes = 1024;
  whole.flops = 7;
  whole.label = 99;   // replaced by the interned label
  TaskGraph g;
  const TaskId a = g.add_task(whole, "send_recv_kv");
  const TaskId b = g.add_task("send_recv_kv");
  Task& t = g.task(b);
  EXPECT_EQ(t.rank, 0);   // a default Task until filled
  EXPECT_EQ(t.comm, kNone);
  t.rank = 3;
  t.kind = TaskKind::SendRecv;
  t.stream = Stream::NcclP2P;
  t.pass = Pass::Backward;
  t.layer = 2;
  t.step = 5;
  t.bytes = 1024;
  t.flops = 7;
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(b, 1u);
  EXPECT_EQ(g.task(a).label, g.task(b).label);
  EXPECT_EQ(g.label(g.task(a)), "send_recv_kv");
  EXPECT_EQ(g.display_name(g.task(a)), "L2.bwd.s5.send_recv_kv");
  EXPECT_EQ(g.display_name(g.task(a)), g.display_name(g.task(b)));
  EXPECT_EQ(g.task(a).bytes, g.task(b).bytes);
  EXPECT_EQ(g.task(a).rank, g.task(b).rank);
  EXPECT_EQ(g.task(a).kind, g.task(b).kind);
  const TaskId c = g.add_task("attn");
  EXPECT_NE(g.task(c).label, g.task(a).label);
}

}  // namespace
}  // namespace hcpsim
