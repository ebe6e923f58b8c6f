// HyperParallel schedules, counted from the graph: all-gather and reduce-scatter bytes against the
// closed forms ((co-1)/co of the rank's K and V head block), all-to-all bytes ((u-1)/u of each
// tensor), attention FLOPs (total = dense; load balance equalises the ranks), the layout's hp_*
// groups, and the async projections.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "engine/layout/layout_format.h"
#include "engine/layout/rank_layout.h"
#include "engine/schedule/build.h"
#include "engine/app/prediction.h"
#include "engine/schedule/hp_dsa.h"
#include "tests/graph/scenario_fixture.h"

namespace hcpsim {
namespace {

Scenario hp_scenario(int tp, int cp, int u, int h, int g, int d, int b, bool lb = false) {
  testing::Config k;
  k.tp = tp;
  k.cp = cp;
  k.heads = h;
  k.kv_heads = g;
  k.head_dim = d;
  k.batch = b;
  k.seq = 1024LL * cp;
  Scenario s = testing::make_scenario(k);
  s.hyperparallel.enabled = true;
  s.hyperparallel.ulysses_degree = u;
  s.hyperparallel.load_balance = lb;
  return s;
}

struct Sums {
  std::map<std::pair<int, std::string>, double> bytes;   // (rank, label) -> bytes sent
  std::map<int, double> attn_flops;                        // rank -> attention FLOPs (forward)
  std::map<std::string, int> count;                        // label -> tasks
};

Sums sums_of(const TaskGraph& g) {
  Sums s;
  for (TaskId i = 0; i < g.size(); ++i) {
    const Task& t = g.task(i);
    const std::string label(g.label(t));
    s.bytes[{t.rank, label}] += t.bytes;
    ++s.count[label];
    if (t.kind == TaskKind::AttentionForward) s.attn_flops[t.rank] += t.flops;
  }
  return s;
}

TaskGraph graph_of(const Scenario& s) {
  GraphOptions o;
  return build_task_graph(s, RankLayout::from_scenario(s), o);
}

TEST(HyperParallelGraph, ColossalAllGatherBytesClosedForm) {
  const int cp = 4, g = 2, d = 16, b = 2;
  const Scenario s = hp_scenario(1, cp, 1, 8, g, d, b);
  const Sums x = sums_of(graph_of(s));
  const double full_k = static_cast<double>(b) * s.model.seq_length * g * d * 2;   // bf16, whole sequence
  for (int r = 0; r < cp; ++r) {
    EXPECT_DOUBLE_EQ((x.bytes.at({r, "all_gather_k"})), full_k * (cp - 1) / cp) << r;
    EXPECT_DOUBLE_EQ((x.bytes.at({r, "all_gather_v"})), full_k * (cp - 1) / cp) << r;
    EXPECT_DOUBLE_EQ((x.bytes.at({r, "reduce_scatter_dk"})), full_k * (cp - 1) / cp) << r;
  }
  // Forward gathers once, backward does not gather again (autograd keeps the gathered K/V).
  EXPECT_EQ(x.count.at("all_gather_k"), cp);
  EXPECT_EQ(x.count.count("a2a_q"), 0u);
}

TEST(HyperParallelGraph, HybridBytesClosedForm) {
  const int tp = 2, cp = 8, u = 2, co = cp / u, h = 16, g = 4, d = 8, b = 1;
  const Scenario s = hp_scenario(tp, cp, u, h, g, d, b);
  const Sums x = sums_of(graph_of(s));
  const double S = static_cast<double>(s.model.seq_length), e = 2;
  const double h_t = h / tp, g_t = g / tp, sl = S / cp;
  const double gathered_block = b * S * (g_t / u) * d * e;   // the rank's head block of K, whole sequence
  const double Tq = b * sl * h_t * d * e, Tk = b * sl * g_t * d * e;
  for (int r = 0; r < tp * cp; ++r) {
    EXPECT_DOUBLE_EQ((x.bytes.at({r, "all_gather_k"})), gathered_block * (co - 1) / co) << r;
    EXPECT_DOUBLE_EQ((x.bytes.at({r, "a2a_q"})), Tq * (u - 1) / u) << r;
    EXPECT_DOUBLE_EQ((x.bytes.at({r, "a2a_k"})), Tk * (u - 1) / u) << r;
    EXPECT_DOUBLE_EQ((x.bytes.at({r, "a2a_dk"})), Tk * (u - 1) / u) << r;
  }
}

TEST(HyperParallelGraph, AttentionFlopsTotalIsDenseAndLoadBalanceEqualises) {
  const int cp = 4, h = 8, g = 2, d = 16, b = 1;
  for (bool lb : {false, true}) {
    const Scenario s = hp_scenario(1, cp, 1, h, g, d, b, lb);
    const Sums x = sums_of(graph_of(s));
    const double S = static_cast<double>(s.model.seq_length);
    const double dense = 2.0 * b * h * (d + d) * S * (S + 1) / 2;
    double total = 0;
    for (const auto& [r, f] : x.attn_flops) total += f;
    EXPECT_NEAR(total / dense, 1.0, 1e-12) << lb;
    if (lb) {
      for (int r = 1; r < cp; ++r) EXPECT_DOUBLE_EQ(x.attn_flops.at(r), x.attn_flops.at(0)) << r;
    } else {
      // Contiguous causal slices: the last rank does (2cp-1)/1 times rank 0's pairs (up to the diagonal).
      EXPECT_GT(x.attn_flops.at(cp - 1), 6.9 * x.attn_flops.at(0));
    }
  }
}

TEST(HyperParallelGraph, LayoutGroupsAreContiguousUlyssesAndStridedColossal) {
  const Scenario s = hp_scenario(2, 8, 2, 16, 4, 8, 1);
  const RankLayout L = RankLayout::from_scenario(s);
  ASSERT_TRUE(L.hyperparallel());
  using Groups = std::vector<std::vector<int>>;
  // CP groups [0,2,..,14] and [1,3,..,15]; ds = adjacent pairs in the CP list, co = strided.
  EXPECT_EQ(L.groups(GroupKind::HP_ULYSSES).front(), (std::vector<int>{0, 2}));
  EXPECT_EQ(L.groups(GroupKind::HP_COLOSSAL).front(), (std::vector<int>{0, 4, 8, 12}));
  EXPECT_EQ(L.groups(GroupKind::HP_ULYSSES).size(), 8u);
  EXPECT_EQ(L.groups(GroupKind::HP_COLOSSAL).size(), 4u);
  EXPECT_FALSE(L.hierarchical());
  const std::string json = layout_to_json(L);
  EXPECT_NE(json.find("\"hp_ulysses\":[[0,2],[4,6]"), std::string::npos) << json.substr(0, 400);
  EXPECT_NE(json.find("\"hp_colossal\":[[0,4,8,12],[2,6,10,14]"), std::string::npos);
  EXPECT_NE(json.find("\"hyperparallel\":{\"ulysses_degree\":2,\"colossal_size\":4"), std::string::npos);
  const std::string text = layout_to_text(L, 8, 4);
  EXPECT_NE(text.find("HYPERPARALLEL_ULYSSES_SUBGROUP (hp_ulysses)"), std::string::npos) << text;
  EXPECT_NE(text.find("(co x ds) = (4 x 2)"), std::string::npos);
  // Megatron scenarios keep their groups.
  Scenario m = s;
  m.hyperparallel = {};
  EXPECT_EQ(layout_to_json(RankLayout::from_scenario(m)).find("hp_ulysses"), std::string::npos);
  (void)Groups{};
}

TEST(HyperParallelGraph, AsyncStartsCollectivesRightAfterTheirProjection) {
  Scenario s = hp_scenario(1, 4, 0, 8, 4, 16, 1);
  s.model.ffn_hidden_size = 256;
  s.hyperparallel.style = HpStyle::AsyncContextParallel;
  GraphOptions o = graph_options_from(s);
  ASSERT_TRUE(o.whole_layer);
  const TaskGraph g = build_task_graph(s, RankLayout::from_scenario(s), o);
  // On rank 0: perm_q follows q_proj and a2a_q follows perm_q; k_proj does not wait for a2a_q.
  TaskId q_proj = kNone, k_proj = kNone, perm_q = kNone, a2a_q = kNone;
  for (TaskId i = 0; i < g.size(); ++i) {
    const Task& t = g.task(i);
    if (t.rank != 0 || t.pass != Pass::Forward) continue;
    const auto l = g.label(t);
    if (l == "q_proj") q_proj = i;
    if (l == "k_proj") k_proj = i;
    if (l == "perm_q") perm_q = i;
    if (l == "a2a_q") a2a_q = i;
  }
  ASSERT_NE(q_proj, kNone);
  ASSERT_NE(perm_q, kNone);
  ASSERT_NE(a2a_q, kNone);
  ASSERT_NE(k_proj, kNone);
  auto has_dep = [&](TaskId t, TaskId d) {
    const auto ds = g.deps(t);
    return std::find(ds.begin(), ds.end(), d) != ds.end();
  };
  EXPECT_TRUE(has_dep(perm_q, q_proj));
  EXPECT_TRUE(has_dep(a2a_q, perm_q));
  EXPECT_FALSE(has_dep(k_proj, a2a_q));
  EXPECT_LT(a2a_q, k_proj);   // issued before k_proj is queued
  // The synchronous style has one fused qkv_proj instead.
  s.hyperparallel.style = HpStyle::ContextParallel;
  const Sums sync = sums_of(build_task_graph(s, RankLayout::from_scenario(s), graph_options_from(s)));
  EXPECT_EQ(sync.count.count("q_proj"), 0u);
  EXPECT_EQ(sync.count.at("qkv_proj"), 4);
}

TEST(HyperParallelGraph, DsaCostsComeFromTopKNotSquare) {
  const int cp = 4;
  Scenario s = hp_scenario(1, cp, 1, 8, 2, 16, 1);
  s.hyperparallel.style = HpStyle::DSA;
  s.model.dsa = {true, 512, 4, 32};
  const TaskGraph g = graph_of(s);
  const std::int64_t S = s.model.seq_length, topk = 512;
  double pairs = 0, brute = 0;
  for (TaskId i = 0; i < g.size(); ++i) {
    const Task& t = g.task(i);
    if (t.kind == TaskKind::AttentionForward) pairs += g.attention_of(t).pairs;
  }
  for (std::int64_t t = 0; t < S; ++t) brute += static_cast<double>(std::min<std::int64_t>(topk, t + 1));
  EXPECT_DOUBLE_EQ(pairs, brute);   // b = 1: pairs per head summed over the ranks
  EXPECT_LE(pairs, static_cast<double>(topk) * S);                   // at most top-k keys per query
  EXPECT_LT(pairs, 0.25 * static_cast<double>(S) * (S + 1) / 2);      // S = 8 top-k: under a quarter of dense
  // Key side gathered (K, V, index key), query side not; the indexer and its loss are there.
  const Sums x = sums_of(g);
  EXPECT_EQ(x.count.at("all_gather_index_k"), cp);
  EXPECT_EQ(x.count.at("indexer"), cp);
  EXPECT_EQ(x.count.at("indexer_loss"), cp);
  EXPECT_EQ(x.count.at("reduce_scatter_dindex_k"), cp);
  EXPECT_EQ(x.count.count("a2a_q"), 0u);
  EXPECT_DOUBLE_EQ(x.bytes.at({0, "all_gather_index_k"}), 3.0 * S / cp * 32 * 2);   // (cp-1) shards of s x 1 x d
}

// AsyncDSA in whole-layer forward: every key-side all-gather starts from the projection that
// produces its input (HyperParallel's handoff modules), runs while the later projections run, and
// is done before the boundary that consumes it (indexer: the indexer key; sparse attention: K, V).
TEST(HyperParallelGraph, AsyncDsaStartsKeySideGathersFromTheirProjections) {
  const int cp = 4;
  Scenario s = hp_scenario(1, cp, 1, 8, 2, 16, 1);
  s.model.ffn_hidden_size = 256;
  s.hyperparallel.style = HpStyle::AsyncDSA;
  s.model.dsa = {true, 512, 4, 32};
  GraphOptions o = graph_options_from(s);
  ASSERT_TRUE(o.whole_layer);
  o.backward = false;
  const TaskGraph g = build_task_graph(s, RankLayout::from_scenario(s), o);
  std::map<std::string, TaskId> at;   // rank 0's forward tasks by label (first of each)
  for (TaskId i = 0; i < g.size(); ++i) {
    const Task& t = g.task(i);
    if (t.rank == 0 && t.pass == Pass::Forward) at.emplace(std::string(g.label(t)), i);
  }
  for (const char* l : {"q_proj", "k_proj", "v_proj", "index_k_proj", "all_gather_k", "all_gather_v",
                        "all_gather_index_k", "indexer", "attn", "indexer_loss"})
    ASSERT_EQ(at.count(l), 1u) << l;
  EXPECT_EQ(at.count("qkv_proj"), 0u);   // three projections instead of the fused one
  auto reach = [&](TaskId from, bool forward) {
    std::vector<char> seen(g.size(), 0);
    std::vector<TaskId> todo{from};
    while (!todo.empty()) {
      const TaskId t = todo.back();
      todo.pop_back();
      for (TaskId n : forward ? g.successors(t) : g.deps(t))
        if (!seen[n]) seen[n] = 1, todo.push_back(n);
    }
    return seen;
  };
  const auto before_k = reach(at["all_gather_k"], false), after_k = reach(at["all_gather_k"], true);
  EXPECT_TRUE(before_k[at["k_proj"]]);                                   // starts after its producer
  EXPECT_FALSE(before_k[at["v_proj"]] || after_k[at["v_proj"]]);         // overlaps the next projections
  EXPECT_FALSE(before_k[at["index_k_proj"]] || after_k[at["index_k_proj"]]);
  EXPECT_TRUE(after_k[at["attn"]]);                                      // done before the attention needs it
  const auto before_v = reach(at["all_gather_v"], false), after_v = reach(at["all_gather_v"], true);
  EXPECT_TRUE(before_v[at["v_proj"]]);
  EXPECT_FALSE(before_v[at["index_k_proj"]] || after_v[at["index_k_proj"]]);
  EXPECT_TRUE(after_v[at["attn"]]);
  const auto before_i = reach(at["all_gather_index_k"], false), after_i = reach(at["all_gather_index_k"], true);
  EXPECT_TRUE(before_i[at["index_k_proj"]]);
  EXPECT_TRUE(after_i[at["indexer"]]);
  // Issued before the next projection is queued; the synchronous DSA gathers after the fused qkv_proj.
  EXPECT_LT(at["all_gather_k"], at["v_proj"]);
  EXPECT_LT(at["all_gather_v"], at["index_k_proj"]);
  s.hyperparallel.style = HpStyle::DSA;
  const TaskGraph sync = build_task_graph(s, RankLayout::from_scenario(s), o);
  TaskId qkv = kNone, gather = kNone;
  for (TaskId i = 0; i < sync.size(); ++i) {
    const Task& t = sync.task(i);
    if (t.rank != 0 || t.pass != Pass::Forward) continue;
    if (sync.label(t) == "qkv_proj") qkv = i;
    if (sync.label(t) == "all_gather_k") gather = i;
  }
  ASSERT_NE(qkv, kNone);
  ASSERT_NE(gather, kNone);
  EXPECT_LT(qkv, gather);
}

// The same in time (analytic backend): on rank 0 the K all-gather is in flight while v_proj runs.
TEST(HyperParallelGraph, AsyncDsaGatherOverlapsTheProjectionsInTime) {
  Scenario s = hp_scenario(1, 4, 1, 8, 2, 64, 1);
  s.model.hidden_size = 512;
  s.model.ffn_hidden_size = 1024;
  s.model.seq_length = 65536;
  s.hyperparallel.style = HpStyle::AsyncDSA;
  s.model.dsa = {true, 2048, 4, 32};
  s.simulation.backend = "analytic";
  s.simulation.layers = 1;
  const Trace t = app::predict(s, "analytic").trace;   // whole layer: the projections are built
  const TraceEvent* gather = nullptr;
  const TraceEvent* v_proj = nullptr;
  const TraceEvent* attn = nullptr;
  for (const TraceEvent& e : t.events) {
    if (e.rank != 0 || e.pass != Pass::Forward || e.layer != 0) continue;
    if (e.name.find("all_gather_k") != std::string::npos && e.name.find("index") == std::string::npos && !gather) gather = &e;
    if (e.name.find("v_proj") != std::string::npos && !v_proj) v_proj = &e;
    if (e.kind == TaskKind::AttentionForward && !attn) attn = &e;
  }
  ASSERT_NE(gather, nullptr);
  ASSERT_NE(v_proj, nullptr);
  ASSERT_NE(attn, nullptr);
  EXPECT_LT(gather->start_s, v_proj->end_s);
  EXPECT_GT(gather->end_s, v_proj->start_s);
  EXPECT_LE(gather->end_s, attn->start_s);
}

TEST(HyperParallelGraph, DsaSparsePairsClosedForm) {
  for (std::int64_t q0 : {0, 3, 10, 100})
    for (std::int64_t topk : {1, 5, 64})
      for (bool causal : {true, false}) {
        double brute = 0;
        for (std::int64_t t = q0; t < q0 + 20; ++t)
          brute += static_cast<double>(std::min<std::int64_t>(topk, causal ? t + 1 : 128));
        EXPECT_DOUBLE_EQ(schedule::dsa_sparse_pairs(q0, 20, 128, topk, causal), brute) << q0 << " " << topk;
      }
}

}  // namespace
}  // namespace hcpsim
