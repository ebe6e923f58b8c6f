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

}  // namespace
}  // namespace hcpsim
