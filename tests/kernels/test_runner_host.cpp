// Host-side parts of the GPU runner (no device needed): placing measured durations on a graph,
// mapping attention tasks to kernel arguments, and the bench/gpu/check.sh scenario being runnable.
#include <gtest/gtest.h>

#include <set>
#include <tuple>
#include <stdexcept>
#include <string>

#include "engine/layout/rank_layout.h"
#include "engine/scenario/loader.h"
#include "engine/schedule/build.h"
#include "engine/validate/validate.h"
#include "kernels/emulated_run.h"
#include "kernels/task_timer.h"
#include "test_files.h"

namespace hcpsim {
namespace {

Task task_on(int rank, TaskKind kind) {
  Task t;
  t.rank = rank;
  t.kind = kind;
  return t;
}

TEST(RunnerPlacement, CollectiveMembersStartTogetherAndEndWithTheSlowest) {
  TaskGraph g;
  const TaskId a = g.add_task(task_on(0, TaskKind::Copy), "a");
  const TaskId b = g.add_task(task_on(1, TaskKind::Copy), "b");
  const TaskId c = g.add_task(task_on(0, TaskKind::SendRecv), "c");
  const TaskId d = g.add_task(task_on(1, TaskKind::SendRecv), "d");
  const TaskId e = g.add_task(task_on(0, TaskKind::Copy), "e");
  CommOp op;
  op.kind = TaskKind::SendRecv;
  op.ranks = {0, 1};
  op.tasks = {c, d};
  const auto ci = g.add_comm(op);
  g.task(c).comm = ci;
  g.task(d).comm = ci;
  g.add_dep(a, c);
  g.add_dep(b, d);
  g.add_dep(c, e);
  // durations: a 2, b 5, c 1, d 3, e 1 -> c and d start at 5 (b), end at 8 (d's 3 s); e at 8..9.
  const auto p = kernels::place_on_graph(g, {2, 5, 1, 3, 1});
  EXPECT_DOUBLE_EQ(p.start_s[a], 0);
  EXPECT_DOUBLE_EQ(p.end_s[a], 2);
  EXPECT_DOUBLE_EQ(p.end_s[b], 5);
  EXPECT_DOUBLE_EQ(p.start_s[c], 5);
  EXPECT_DOUBLE_EQ(p.start_s[d], 5);
  EXPECT_DOUBLE_EQ(p.end_s[c], 8);
  EXPECT_DOUBLE_EQ(p.end_s[d], 8);
  EXPECT_DOUBLE_EQ(p.start_s[e], 8);
  EXPECT_DOUBLE_EQ(p.end_s[e], 9);
  EXPECT_THROW(kernels::place_on_graph(g, {1, 2}), std::invalid_argument);
}

TEST(RunnerPlacement, ACollectiveWaitingOnItselfIsReportedNotHung) {
  TaskGraph g;
  const TaskId c = g.add_task(task_on(0, TaskKind::AllToAll), "x");
  const TaskId d = g.add_task(task_on(1, TaskKind::AllToAll), "y");
  CommOp op;
  op.kind = TaskKind::AllToAll;
  op.ranks = {0, 1};
  op.tasks = {c, d};
  const auto ci = g.add_comm(op);
  g.task(c).comm = ci;
  g.task(d).comm = ci;
  g.add_dep(c, d);   // a member that waits for another member can never start with it
  EXPECT_THROW(kernels::place_on_graph(g, {1, 1}), std::runtime_error);
}

TEST(RunnerAttention, SectionsMapToKernelMasksAndBadShapesNameTheTask) {
  TaskGraph g;
  const std::pair<MaskSection, kernels::MaskKind> cases[] = {
      {MaskSection::Diagonal, kernels::MaskKind::CausalTopLeft},
      {MaskSection::Causal, kernels::MaskKind::CausalTopLeft},
      {MaskSection::Lower, kernels::MaskKind::None},
      {MaskSection::Upper, kernels::MaskKind::None},
      {MaskSection::Full, kernels::MaskKind::None},
      {MaskSection::BottomRight, kernels::MaskKind::CausalBottomRight}};
  for (const auto& [section, mask] : cases) {
    AttentionShape s;
    s.q_len = 256;
    s.kv_len = 128;
    s.heads = 8;
    s.kv_heads = 2;
    s.head_dim_qk = s.head_dim_v = 128;
    s.section = section;
    Task t = task_on(3, TaskKind::AttentionForward);
    t.attention = g.add_attention(s);
    const TaskId id = g.add_task(t, "attn");
    const auto d = kernels::attention_dims_of(g, g.task(id));
    EXPECT_EQ(d.mask, mask) << to_string(section);
    EXPECT_EQ(d.q_len, 256);
    EXPECT_EQ(d.kv_heads, 2);
  }
  AttentionShape bad;
  bad.q_len = bad.kv_len = 64;
  bad.heads = bad.kv_heads = 1;
  bad.head_dim_qk = bad.head_dim_v = 96;
  Task t = task_on(5, TaskKind::AttentionBackward);
  t.attention = g.add_attention(bad);
  const TaskId id = g.add_task(t, "attn");
  try {
    kernels::attention_dims_of(g, g.task(id));
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("task " + std::to_string(id)), std::string::npos) << m;
    EXPECT_NE(m.find("rank 5"), std::string::npos) << m;
    EXPECT_NE(m.find("96"), std::string::npos) << m;
  }
}

TEST(RunnerScenario, CheckScenarioIsRunnableByTheGpuKernels) {
  const Scenario s = load_scenario_file(test::source_file("bench/gpu/emulated-small.yaml"));
  ASSERT_FALSE(validate(s).has_errors());
  const TaskGraph g = build_task_graph(s, RankLayout::from_scenario(s), graph_options_from(s));
  ASSERT_EQ(g.world_size, 8);
  std::set<std::tuple<int, int, int, int, int>> shapes;   // q_len, kv_len, heads, kv_heads, mask
  for (const Task& t : g.tasks()) {
    EXPECT_NE(t.kind, TaskKind::Gemm) << "the GPU runner does not run GEMM tasks";
    if (t.kind != TaskKind::AttentionForward && t.kind != TaskKind::AttentionBackward) continue;
    const auto d = kernels::attention_dims_of(g, t);   // throws if a shape is unsupported
    shapes.insert({d.q_len, d.kv_len, d.heads * d.batch, d.kv_heads * d.batch, static_cast<int>(d.mask)});
  }
  // a2a+p2p [2,4] at S = 32768: each rank holds S/P = 8192 tokens of h/A = 16 query heads and
  // g/A = 4 KV heads (docs/schedules.md); half-chunk c = 4096. Diagonal 8192x8192 causal, lower 8192x4096,
  // upper 4096x8192, both unmasked.
  const int none = static_cast<int>(kernels::MaskKind::None);
  const int causal = static_cast<int>(kernels::MaskKind::CausalTopLeft);
  EXPECT_TRUE(shapes.count({8192, 8192, 16, 4, causal}));
  EXPECT_TRUE(shapes.count({8192, 4096, 16, 4, none}));
  EXPECT_TRUE(shapes.count({4096, 8192, 16, 4, none}));
  EXPECT_EQ(shapes.size(), 3u);
}

}  // namespace
}  // namespace hcpsim
