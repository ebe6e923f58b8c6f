// HyperParallel's CP styles compute exact attention: pure Ulysses, pure Colossal, hybrid u = 2 and
// 4, head-tail load balance (even and odd cp), AsyncContextParallel (its projections included), on
// MHA and GQA, causal and unmasked, tp 1 and 2 — O, dQ, dK, dV against dense attention.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/layout/rank_layout.h"
#include "engine/reference/data_loader.h"
#include "engine/reference/dense_attention.h"
#include "engine/reference/executor.h"
#include "engine/reference/verify.h"
#include "engine/schedule/build.h"
#include "tests/graph/scenario_fixture.h"
#include "tests/reference/expect_exact.h"

namespace hcpsim {
namespace {

struct HpCase {
  const char* name;
  int cp;
  int u;               // 0: ulysses_degree not given (pure Ulysses)
  bool load_balance;
  bool async;
  bool gqa;
  bool causal;
  int tp;
};

Scenario scenario_of(const HpCase& c) {
  testing::Config k;
  k.tp = c.tp;
  k.cp = c.cp;
  k.causal = c.causal;
  const int u = c.u == 0 ? c.cp : c.u;
  k.kv_heads = c.tp * u;
  k.heads = c.gqa ? 2 * k.kv_heads : k.kv_heads;
  k.seq = 2LL * c.cp * 4;
  k.batch = 2;
  Scenario s = testing::make_scenario(k);
  s.hyperparallel.enabled = true;
  s.hyperparallel.ulysses_degree = c.u;
  s.hyperparallel.load_balance = c.load_balance;
  s.hyperparallel.style = c.async ? HpStyle::AsyncContextParallel : HpStyle::ContextParallel;
  return s;
}

class HyperParallelExact : public ::testing::TestWithParam<HpCase> {};

TEST_P(HyperParallelExact, MatchesDenseAttention) {
  testing::expect_exact_in_float(scenario_of(GetParam()));
}

std::vector<HpCase> cases() {
  std::vector<HpCase> v;
  for (bool gqa : {false, true})
    for (bool causal : {true, false}) {
      const std::string tail = std::string(gqa ? "_gqa" : "_mha") + (causal ? "_causal" : "_nomask");
      auto add = [&](std::string n, int cp, int u, bool lb, bool async, int tp) {
        static std::vector<std::string> names;   // keep the names alive for the test generator
        names.push_back(n + tail + "_tp" + std::to_string(tp));
        v.push_back({names.back().c_str(), cp, u, lb, async, gqa, causal, tp});
      };
      add("ulysses_cp4", 4, 0, false, false, 1);
      add("colossal_cp4", 4, 1, false, false, 1);
      add("colossal_cp3", 3, 1, false, false, 1);
      add("hybrid_u2_cp8", 8, 2, false, false, 1);
      add("hybrid_u4_cp8", 8, 4, false, false, 1);
      add("hybrid_u2_cp4", 4, 2, false, false, 2);
      add("load_balance_cp4", 4, 1, true, false, 1);
      add("load_balance_cp3", 3, 1, true, false, 1);
      add("async_ulysses_cp4", 4, 0, false, true, 1);
      add("async_colossal_cp4", 4, 1, false, true, 1);
      add("async_hybrid_u2_cp8", 8, 2, false, true, 1);
      add("async_load_balance_fallback_cp4", 4, 1, true, true, 1);
    }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Modes, HyperParallelExact, ::testing::ValuesIn(cases()),
                         [](const auto& i) { return std::string(i.param.name); });

TEST(HyperParallelExact, LocalOnlyGraphIsReportedWrong) {
  // The check is not vacuous with contiguous shards: a graph in which each rank attends only to
  // its own slice (no CP communication) must be reported wrong.
  HpCase c{"x", 4, 1, false, false, false, true, 1};
  Scenario s = scenario_of(c);
  reference::VerifyOptions o;
  o.exec.use_float = true;
  ASSERT_TRUE(reference::verify_scenario(s, o).ok);
  o.silent_disable_pitfall = true;   // each rank attends to its own slice only
  const auto r = reference::verify_scenario(s, o);
  EXPECT_FALSE(r.ok);
  EXPECT_GT(r.out, 1e-2);
}

// DSA: sparse attention over the top-k keys of each query, exact against dense attention masked to
// the same keys; top-k below, equal to and above the local slice, MHA and GQA, causal and unmasked.
struct DsaCase {
  const char* name;
  int cp, topk;
  bool gqa, causal;
};

class HyperParallelDsaExact : public ::testing::TestWithParam<DsaCase> {};

TEST_P(HyperParallelDsaExact, MatchesMaskedDenseAttention) {
  const DsaCase& c = GetParam();
  Scenario s = scenario_of({"x", c.cp, 1, false, false, c.gqa, c.causal, 1});
  s.hyperparallel.style = HpStyle::DSA;
  s.model.dsa = {true, c.topk, 3, 4};
  reference::VerifyOptions o;
  o.exec.use_float = true;
  const auto r = reference::verify_scenario(s, o);
  EXPECT_TRUE(r.ok) << r.detail << " out " << r.out << " dq " << r.dq << " dk " << r.dk << " dv " << r.dv;
  EXPECT_LT(r.out, 1e-4);
  EXPECT_LT(r.dk, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Dsa, HyperParallelDsaExact,
                         ::testing::Values(DsaCase{"topk3_cp4_mha_causal", 4, 3, false, true},
                                           DsaCase{"topk5_cp4_gqa_causal", 4, 5, true, true},
                                           DsaCase{"topk12_cp4_gqa_causal", 4, 12, true, true},
                                           DsaCase{"topk6_cp3_mha_nomask", 3, 6, false, false},
                                           DsaCase{"topk7_cp2_gqa_nomask", 2, 7, true, false}),
                         [](const auto& i) { return std::string(i.param.name); });

// AsyncDSA: the key-side gathers read what the projections produce (the executor fails on a read
// before the write), and the result is the same exact sparse attention.
class HyperParallelAsyncDsaExact : public ::testing::TestWithParam<DsaCase> {};

TEST_P(HyperParallelAsyncDsaExact, MatchesMaskedDenseAttention) {
  const DsaCase& c = GetParam();
  Scenario s = scenario_of({"x", c.cp, 1, false, false, c.gqa, c.causal, 1});
  s.hyperparallel.style = HpStyle::AsyncDSA;
  s.model.dsa = {true, c.topk, 3, 4};
  testing::expect_exact_in_float(s);
  // The graph verified is the async one: projections, with the gathers reading their outputs.
  GraphOptions go;
  go.with_payloads = true;
  go.hp_projections = true;
  const TaskGraph g = build_task_graph(s, RankLayout::from_scenario(s), go);
  int index_k_proj = 0;
  for (const Task& t : g.tasks()) index_k_proj += g.label(t) == "index_k_proj";
  EXPECT_EQ(index_k_proj, c.cp);
}

INSTANTIATE_TEST_SUITE_P(AsyncDsa, HyperParallelAsyncDsaExact,
                         ::testing::Values(DsaCase{"topk3_cp4_mha_causal", 4, 3, false, true},
                                           DsaCase{"topk12_cp4_gqa_causal", 4, 12, true, true},
                                           DsaCase{"topk7_cp2_gqa_nomask", 2, 7, true, false}),
                         [](const auto& i) { return std::string(i.param.name); });

TEST(HyperParallelDsaExact, IndexerSelectsFewerKeysThanDense) {
  // A top-k graph verified against the UNMASKED dense attention must fail: the sparse attention is
  // really sparse.
  Scenario s = scenario_of({"x", 4, 1, false, false, false, true, 1});
  s.hyperparallel.style = HpStyle::DSA;
  s.model.dsa = {true, 2, 3, 4};
  reference::VerifyOptions o;
  o.exec.use_float = true;
  ASSERT_TRUE(reference::verify_scenario(s, o).ok);
  const TaskGraph g = build_task_graph(s, RankLayout::from_scenario(s), [] {
    GraphOptions go;
    go.with_payloads = true;
    return go;
  }());
  const auto ex = reference::execute_reference(g, s, RankLayout::from_scenario(s), o.exec);
  const auto q = reference::global_input(s, o.exec.seed, 0, reference::InputTensor::Q);
  const auto k = reference::global_input(s, o.exec.seed, 0, reference::InputTensor::K);
  const auto v = reference::global_input(s, o.exec.seed, 0, reference::InputTensor::V);
  const auto dout = reference::global_input(s, o.exec.seed, 0, reference::InputTensor::DOut);
  const auto dense = reference::dense_attention(q, k, v, dout, true);
  // Rank 3 holds the last tokens: their outputs differ from unmasked attention.
  const auto& out = ex.results[3].at(0).out;
  double diff = 0;
  const std::int64_t sl = s.model.seq_length / 4;
  for (std::int64_t t = 0; t < sl; ++t)
    for (std::int64_t d = 0; d < out.D; ++d) diff = std::max(diff, std::abs(out.at(0, t, 0, d) - dense.out.at(0, 3 * sl + t, 0, d)));
  EXPECT_GT(diff, 1e-3);
}

}  // namespace
}  // namespace hcpsim
