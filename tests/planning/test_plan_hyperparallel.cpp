// The planner with HyperParallel's CP modes as candidates: enumerated only when asked for (or when
// the base scenario is a HyperParallel one), refused by the engine's validator with its message
// where the heads forbid them, predicted by the analytic backend and ranked together with
// Megatron's layouts; the layer cache keeps HyperParallel modes apart.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

#include "engine/app/backend_catalog.h"
#include "engine/app/point_eval.h"
#include "engine/planning/planner.h"
#include "engine/planning/sweep_spec.h"
#include "engine/scenario/loader.h"
#include "engine/validate/validate.h"

namespace hcpsim::planning {
namespace {

// Llama-3-8B (32 query heads, 8 KV heads) at 128K tokens on one DGX H100, full recomputation; the
// shipped example without its hyperparallel: section (a Megatron base).
Scenario llama8b_one_node() {
  LoadOptions o;
  o.overrides = {"cluster.nodes=1", "model.context_parallel_size=8", "hyperparallel.mesh_dim_names=[]"};
  Scenario s = load_scenario_file(HCPSIM_SOURCE_DIR "/scenarios/hp-llama3-8b-128k-dgx-h100-hybrid.yaml", o);
  s.hyperparallel.enabled = false;
  return s;
}

PlanOptions layouts(bool hp) {
  PlanOptions o;
  o.top = 1000;
  o.search = PlanSearch::layouts_only();
  o.search.hyperparallel = hp;
  o.memory.recompute = Recompute::Full;
  o.metric = "attention_s";
  return o;
}

std::size_t hp_count(const std::vector<PlanCandidate>& cs) {
  return static_cast<std::size_t>(std::count_if(cs.begin(), cs.end(), [](const PlanCandidate& c) { return c.hyperparallel; }));
}

TEST(PlanHyperParallel, CandidatesOnlyWhenAsked) {
  const Scenario base = llama8b_one_node();
  const PlanOptions off = layouts(false), on = layouts(true);
  const auto megatron = enumerate_candidates(base, 8, off.search, off.memory);
  const auto both = enumerate_candidates(base, 8, on.search, on.memory);
  EXPECT_EQ(hp_count(megatron), 0u);
  // Per (tp, cp > 1): ContextParallel with ulysses_degree unset, 1, 1 + load_balance and each divisor
  // 1 < u < cp; AsyncContextParallel the same without load_balance.
  std::size_t expected = 0;
  for (int tp : {1, 2, 4, 8})
    for (int cp = 2; cp <= 8 / tp; ++cp) {
      if ((8 / tp) % cp) continue;
      int between = 0;
      for (int u = 2; u < cp; ++u) between += cp % u == 0;
      expected += (3 + between) + (2 + between);
    }
  EXPECT_EQ(hp_count(both), expected);
  EXPECT_EQ(both.size() - hp_count(both), megatron.size());
  // A base that is a HyperParallel scenario asks by itself, in its own style.
  Scenario hp_base = base;
  hp_base.hyperparallel.enabled = true;
  hp_base.hyperparallel.style = HpStyle::AsyncContextParallel;
  const auto own = enumerate_candidates(hp_base, 8, off.search, off.memory);
  EXPECT_GT(hp_count(own), 0u);
  for (const PlanCandidate& c : own)
    if (c.hyperparallel) {
      EXPECT_EQ(c.hp_style, HpStyle::AsyncContextParallel) << c.label();
    }
}

TEST(PlanHyperParallel, DsaBaseIsColossalOnly) {
  Scenario base = llama8b_one_node();
  base.hyperparallel.enabled = true;
  base.hyperparallel.style = HpStyle::DSA;
  base.hyperparallel.ulysses_degree = 1;
  base.model.dsa = {true, 2048, 64, 128};
  const PlanOptions o = layouts(false);
  const auto cs = enumerate_candidates(base, 8, o.search, o.memory);
  ASSERT_FALSE(cs.empty());
  for (const PlanCandidate& c : cs) {
    EXPECT_TRUE(c.hyperparallel) << c.label();   // dense Megatron attention is no comparison for DSA
    EXPECT_EQ(c.ulysses_degree, 1) << c.label();
    EXPECT_FALSE(c.load_balance);
  }
}

TEST(PlanHyperParallel, RanksHyperParallelAndMegatronTogether) {
  const Scenario base = llama8b_one_node();
  const BackendRegistry& reg = app::backend_registry();
  LayerCache cache;
  PlanOptions o = layouts(true);
  o.gpus = 16;   // two nodes: tp=2 cp=8 exists, where pure Ulysses runs out of KV heads
  const PlanOutcome out = plan(base, o, [](const Scenario& s) { return validate(s); },
                               [&](const Scenario& s) { return predict_scenario(s, "analytic", reg, &cache); },
                               [](const Scenario& s) { return layer_cache_key(s, "analytic"); });
  EXPECT_EQ(out.failed, 0u);
  ASSERT_GT(out.best.size(), 10u);
  std::size_t hp = 0, megatron = 0;
  for (std::size_t i = 0; i < out.best.size(); ++i) {
    const PlanEntry& e = out.best[i];
    (e.candidate.hyperparallel ? hp : megatron) += 1;
    EXPECT_EQ(e.scenario.hyperparallel_cp(), e.candidate.hyperparallel) << e.candidate.label();
    EXPECT_FALSE(validate(e.scenario).has_errors()) << e.candidate.label();
    if (i > 0) {
      EXPECT_LE(metric_value(out.best[i - 1].result, out.metric), metric_value(e.result, out.metric));
    }
    if (e.candidate.hyperparallel && e.candidate.cp > 1) {
      EXPECT_EQ(e.result.comm_type.rfind("hp-", 0), 0u) << e.result.comm_type;
      EXPECT_NE(e.explanation.find("HyperParallel"), std::string::npos) << e.explanation;
    }
  }
  EXPECT_GT(hp, 0u);
  EXPECT_GT(megatron, 0u);
  // Pure Ulysses beyond the KV heads (tp=2 leaves 4 KV heads per rank, cp=8) is refused with the
  // validator's words, not silently dropped.
  const auto refused = std::find_if(out.invalid_reasons.begin(), out.invalid_reasons.end(), [](const auto& r) {
    return r.first.find("hyperparallel: Pure Ulysses requires num_heads % cp_size") != std::string::npos;
  });
  EXPECT_NE(refused, out.invalid_reasons.end());
  // Causal mask: HyperParallel's contiguous slices leave the last Colossal rank the most work, so the
  // hybrid u = 2 is slower than Megatron's dual-chunk a2a+p2p [2,4]; head-tail load balance makes
  // pure Colossal faster than without it.
  const auto find = [&](const std::string& label) {
    const auto it = std::find_if(out.best.begin(), out.best.end(), [&](const PlanEntry& e) { return e.candidate.label() == label; });
    return it == out.best.end() ? std::nan("") : metric_value(it->result, out.metric);
  };
  const double hybrid = find("tp=1 cp=8 dp=2 hp hybrid u=2 recompute=full");
  const double hcp = find("tp=1 cp=8 dp=2 a2a+p2p [2,4] recompute=full");
  const double colossal = find("tp=1 cp=8 dp=2 hp colossal recompute=full");
  const double balanced = find("tp=1 cp=8 dp=2 hp colossal lb recompute=full");
  EXPECT_GT(hybrid, hcp);
  EXPECT_LT(balanced, colossal);
}

TEST(PlanHyperParallel, LayerCacheKeepsModesApart) {
  Scenario a = llama8b_one_node();
  a.hyperparallel.enabled = true;
  a.hyperparallel.ulysses_degree = 2;
  Scenario b = a;
  b.hyperparallel.ulysses_degree = 4;
  Scenario c = a;
  c.hyperparallel.enabled = false;
  Scenario d = a;
  d.hyperparallel.style = HpStyle::AsyncContextParallel;
  const std::string ka = layer_cache_key(a, "analytic");
  EXPECT_NE(ka, layer_cache_key(b, "analytic"));
  EXPECT_NE(ka, layer_cache_key(c, "analytic"));
  EXPECT_NE(ka, layer_cache_key(d, "analytic"));
}

std::string write_sweep(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("hcpsim-hp-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << text;
  return path.string();
}

// A sweep axis over ulysses_degree, null (unset: pure Ulysses) included: every value is a point;
// the ones HyperParallel refuses are kept as invalid rows with the validator's message.
TEST(SweepHyperParallel, UlyssesDegreeAxisWithNull) {
  const std::string file = write_sweep("ulysses.yaml",
                                       "base: " HCPSIM_SOURCE_DIR "/scenarios/hp-llama3-8b-128k-dgx-h100-hybrid.yaml\n"
                                       "backend: analytic\n"
                                       "vary:\n"
                                       "  hyperparallel.ulysses_degree: [null, 1, 2, 8, 3]\n");
  const SweepSpec spec = load_sweep_file(file);
  std::filesystem::remove(file);
  const auto points = expand_points(spec, {});
  ASSERT_EQ(points.size(), 5u);
  EXPECT_EQ(points[0].labels[0], "null");
  std::vector<PointResult> r;
  for (const SweepPoint& p : points) r.push_back(evaluate_point(spec.base_path, p, "analytic", app::backend_registry(), {}));
  // cp=16 with 8 KV heads: pure Ulysses is refused, with the hint toward the hybrid u = 8.
  EXPECT_EQ(r[0].status, PointStatus::Invalid);
  EXPECT_NE(r[0].message.find("Pure Ulysses requires num_heads % cp_size == 0"), std::string::npos) << r[0].message;
  EXPECT_NE(r[0].message.find("ulysses_degree: 8"), std::string::npos) << r[0].message;
  EXPECT_EQ(r[4].status, PointStatus::Invalid);
  EXPECT_NE(r[4].message.find("must be divisible by ulysses_degree (3)"), std::string::npos) << r[4].message;
  const std::vector<std::string> modes{"", "hp-colossal-u1", "hp-hybrid-u2", "hp-hybrid-u8"};
  for (std::size_t i = 1; i <= 3; ++i) {
    EXPECT_EQ(r[i].status, PointStatus::Ok) << r[i].message;
    EXPECT_EQ(r[i].comm_type, modes[i]);
    EXPECT_GT(r[i].metrics.attention_forward_s, 0);
  }
  // More Ulysses, less gathered K/V: the hybrid u = 8 needs less memory than pure Colossal.
  EXPECT_LT(r[3].metrics.memory_per_gpu_bytes, r[1].metrics.memory_per_gpu_bytes);
}

// cp_layouts with `hyperparallel` beside Megatron's comm types, from a Megatron base: one table.
TEST(SweepHyperParallel, CpLayoutsGenerateBothFrameworks) {
  const AxisGroup g = make_cp_layouts({1, 8}, {"p2p", "a2a+p2p", "hyperparallel"});
  std::vector<std::string> labels;
  for (const AxisValue& v : g.values) labels.push_back(v.labels[0] + " " + v.labels[1]);
  EXPECT_EQ(labels, (std::vector<std::string>{"1 p2p", "8 p2p", "8 hcp A=2", "8 hcp A=4", "8 hp ulysses", "8 hp colossal",
                                              "8 hp colossal lb", "8 hp hybrid u=2", "8 hp hybrid u=4"}));
  const std::string file = write_sweep("layouts.yaml",
                                       "base: " HCPSIM_SOURCE_DIR "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml\n"
                                       "backend: analytic\n"
                                       "cp_layouts: {cp: [8], comm_types: [a2a+p2p, hyperparallel]}\n");
  const SweepSpec spec = load_sweep_file(file);
  std::filesystem::remove(file);
  std::map<std::string, PointResult> by_layout;
  for (const SweepPoint& p : expand_points(spec, {}))
    by_layout[p.labels[1]] = evaluate_point(spec.base_path, p, "analytic", app::backend_registry(), {});
  ASSERT_EQ(by_layout.size(), 7u);
  EXPECT_EQ(by_layout["hcp A=2"].comm_type, "a2a+p2p");
  EXPECT_EQ(by_layout["hp hybrid u=2"].comm_type, "hp-hybrid-u2");
  EXPECT_EQ(by_layout["hp colossal lb"].comm_type, "hp-colossal-u1-lb");
  EXPECT_EQ(by_layout["hp ulysses"].comm_type, "hp-ulysses-u8");
  for (const auto& [layout, r] : by_layout) EXPECT_EQ(r.status, PointStatus::Ok) << layout << ": " << r.message;
  EXPECT_THROW(make_cp_layouts({8}, {"hyper"}), std::invalid_argument);
}

}  // namespace
}  // namespace hcpsim::planning
