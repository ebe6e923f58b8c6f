// The predictors against closed forms of the documented cost model (docs/metrics.md sections 1-2),
// and a scenario case against simulate_scenario() on the same scenario.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/accuracy/case_loader.h"
#include "engine/accuracy/case_prediction.h"
#include "engine/app/engine_backends.h"
#include "engine/app/simulate.h"
#include "engine/scenario/loader.h"
#include "engine/scenario/schema.h"

using namespace hcpsim;
using namespace hcpsim::accuracy;

namespace {

const std::string kData = HCPSIM_ACCURACY_DATA;
constexpr double kKernelOverhead_s = 2e-6;   // docs/metrics.md: o = 2 us

const BackendRegistry& engine_backends() {
  static const BackendRegistry r = [] {
    BackendRegistry reg;
    register_engine_backends(reg);
    return reg;
  }();
  return r;
}

// The nominal model the closed forms describe: every cost-model term of docs/metrics.md switched
// off, in builds whose scenario format has the switches.
PredictOptions nominal() {
  PredictOptions o;
  if (schema::is_known_path("cluster.efficiency.model_terms.all"))
    o.overrides.push_back("cluster.efficiency.model_terms.all=off");
  return o;
}

AccuracyCase suite_case(const std::string& name) { return load_case_file(kData + "/suite/" + name + ".yaml"); }

// docs/metrics.md: eff_attn = plateau * q/(q+L0) * kv/(kv+L0), L0 = 80 (forward) / 150 (backward).
double attention_efficiency(double plateau, Pass p, double q, double kv) {
  const double l0 = p == Pass::Forward ? 80 : 150;
  return plateau * q / (q + l0) * kv / (kv + l0);
}

// docs/metrics.md: link_efficiency(m) = plateau * m / (m + m_half).
double link_efficiency(double plateau, double m, double m_half) { return plateau * m / (m + m_half); }

}  // namespace

TEST(KernelCase, ForwardTflopsIsTheFaFlopCountOverTheCostModelTime) {
  const AccuracyCase c = suite_case("kernel-fa3-fwd-16k");
  const Scenario s = kernel_scenario(c, nominal());
  EXPECT_EQ(s.world_size(), 1);
  const TaskGraph g = kernel_graph(c, s);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g.task(0).kind, TaskKind::AttentionForward);
  const double n = 16384, h = 16, d = 128;
  const double fa_flops = 4 * h * n * n * d;   // batch 1, non-causal
  EXPECT_DOUBLE_EQ(kernel_reported_flops(c, g), fa_flops);
  const double eff = attention_efficiency(s.cluster.efficiency.attention_forward, Pass::Forward, n, n);
  const double t = kKernelOverhead_s + fa_flops / (s.cluster.gpu.bf16_flops * eff);
  EXPECT_NEAR(predict_case(c, engine_backends(), nominal()), fa_flops / t / 1e12, 1e-9 * fa_flops / t / 1e12);
}

TEST(KernelCase, CausalBackwardWithGqaOnA100) {
  const AccuracyCase c = suite_case("kernel-fa2-bwd-causal");
  const Scenario s = kernel_scenario(c, nominal());
  EXPECT_EQ(s.cluster.gpu.name.find("a100") != std::string::npos, true) << s.cluster.gpu.name;
  const double b = 2, h = 32, d = 128, q = 4096;
  const double pairs = q * (q + 1) / 2;                  // exact causal pairs
  const double flops = 2 * b * h * (3 * d + 2 * d) * pairs;  // backward: 2 FLOPs x (3 d_qk + 2 d_v) per pair
  const TaskGraph g = kernel_graph(c, s);
  EXPECT_DOUBLE_EQ(g.task(0).flops, flops);
  const double eff = attention_efficiency(s.cluster.efficiency.attention_backward, Pass::Backward, q, q);
  const double t_ms = (kKernelOverhead_s + flops / (s.cluster.gpu.bf16_flops * eff)) * 1e3;
  EXPECT_NEAR(predict_case(c, engine_backends(), nominal()), t_ms, 1e-9 * t_ms);
}

TEST(KernelCase, ShorterQueryThanKeysIsReshapedBottomRight) {
  const AccuracyCase c = suite_case("kernel-kv-longer");
  const Scenario s = kernel_scenario(c, nominal());
  const TaskGraph g = kernel_graph(c, s);
  ASSERT_EQ(g.size(), 1u);
  const AttentionShape& a = g.attention_of(g.task(0));
  EXPECT_EQ(a.q_len, 1024);
  EXPECT_EQ(a.kv_len, 8192);
  EXPECT_EQ(a.kv_heads, 8);
  const double q = 1024, k = 8192, h = 32, d = 128;
  const double pairs = q * (k - q) + q * (q + 1) / 2;   // query i sees k - q + i + 1 keys
  const double flops = 2 * h * (d + d) * pairs;
  EXPECT_DOUBLE_EQ(g.task(0).flops, flops);
  const double eff = attention_efficiency(s.cluster.efficiency.attention_forward, Pass::Forward, q, k);
  const double t_ms = (kKernelOverhead_s + flops / (s.cluster.gpu.bf16_flops * eff)) * 1e3;
  EXPECT_NEAR(predict_case(c, engine_backends(), nominal()), t_ms, 1e-9 * t_ms);
}

TEST(KernelCase, ForwardBackwardIsTheForwardThenTheBackwardKernel) {
  // One ring step's shape (query chunk against a longer KV), timed as forward + backward.
  const AccuracyCase c = load_case_text(
      "kind: kernel\nrole: fit\nsource: {citation: c, where: w}\nsetup: s\ngpu: h100-sxm\n"
      "kernel: {pass: forward_backward, family: fa2, batch: 2, seq_q: 2048, seq_kv: 6144, heads: 16, kv_heads: 4,\n"
      "         head_dim: 128, causal: false}\n"
      "metric: tflops\nflops_convention: fa\nmeasured: 400\n",
      "fwdbwd.yaml");
  const Scenario s = kernel_scenario(c, nominal());
  const TaskGraph g = kernel_graph(c, s);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g.task(0).kind, TaskKind::AttentionForward);
  EXPECT_EQ(g.task(1).kind, TaskKind::AttentionBackward);
  EXPECT_EQ(g.deps(1), std::vector<TaskId>{0});   // the backward waits for the forward, as built
  const double b = 2, h = 16, d = 128, q = 2048, k = 6144, peak = s.cluster.gpu.bf16_flops;
  const double f_fwd = 2 * b * h * (d + d) * q * k, f_bwd = 2 * b * h * (3 * d + 2 * d) * q * k;
  EXPECT_DOUBLE_EQ(g.task(0).flops, f_fwd);
  EXPECT_DOUBLE_EQ(g.task(1).flops, f_bwd);
  const double t = kKernelOverhead_s +
                   f_fwd / (peak * attention_efficiency(s.cluster.efficiency.attention_forward, Pass::Forward, q, k)) +
                   kKernelOverhead_s +
                   f_bwd / (peak * attention_efficiency(s.cluster.efficiency.attention_backward, Pass::Backward, q, k));
  const double fa_flops = 3.5 * 4 * b * h * q * k * d;   // the FlashAttention count: forward x 3.5
  EXPECT_DOUBLE_EQ(kernel_reported_flops(c, g), fa_flops);
  EXPECT_NEAR(predict_case(c, engine_backends(), nominal()), fa_flops / t / 1e12, 1e-9 * fa_flops / t / 1e12);
}

TEST(KernelCase, FamilyReachesTheCostModelWhenTheScenarioHasTheField) {
  AccuracyCase fa2 = suite_case("kernel-fa3-fwd-16k");
  AccuracyCase fa3 = fa2;
  fa2.kernel.family = "fa2";
  const double p2 = predict_case(fa2, engine_backends()), p3 = predict_case(fa3, engine_backends());
  if (schema::is_known_path("cluster.efficiency.attention_kernel"))
    EXPECT_NE(p2, p3);   // the efficiency tables differ by family
  else
    EXPECT_EQ(p2, p3);   // no field to carry it: the family cannot change the prediction
}

TEST(CollectiveCase, AllToAllBusBandwidthInsideOneNode) {
  const AccuracyCase c = suite_case("nccl-a2a-8");
  const Scenario s = collective_scenario(c, nominal());
  const TaskGraph g = collective_graph(c, s);
  ASSERT_EQ(g.comms().size(), 1u);
  EXPECT_EQ(g.comms()[0].ranks.size(), 8u);
  const double T = 268435456, n = 8, piece = T / n;
  const double eff = link_efficiency(s.cluster.efficiency.intra_node_link, piece, 1 << 20);
  const double t = s.cluster.intra_node_latency_s + (n - 1) / n * T / (s.cluster.intra_node_bandwidth_Bps * eff);
  const double bus_GBps = T / t / 1e9 * (n - 1) / n;
  EXPECT_NEAR(predict_case(c, engine_backends(), nominal()), bus_GBps, 1e-9 * bus_GBps);
}

TEST(CollectiveCase, AllGatherIsARingOfShards) {
  const AccuracyCase c = suite_case("nccl-ag-8");
  const Scenario s = collective_scenario(c, nominal());
  const double size = 1073741824, n = 8, shard = size / n;
  const double eff = link_efficiency(s.cluster.efficiency.intra_node_link, shard, 1 << 20);
  const double t = (n - 1) * (s.cluster.intra_node_latency_s + shard / (s.cluster.intra_node_bandwidth_Bps * eff));
  const double alg_GBps = size / t / 1e9;
  EXPECT_NEAR(predict_case(c, engine_backends(), nominal()), alg_GBps, 1e-9 * alg_GBps);
}

TEST(CollectiveCase, SendRecvBetweenNodesCrossesTheNic) {
  const AccuracyCase c = suite_case("nccl-sendrecv-ib");
  const Scenario s = collective_scenario(c, nominal());
  EXPECT_EQ(s.world_size(), 2);
  const TaskGraph g = collective_graph(c, s);
  ASSERT_EQ(g.comms().size(), 1u);
  EXPECT_EQ(g.comms()[0].transfers.size(), 2u);   // 0 -> 1 and 1 -> 0, as nccl-tests sendrecv
  const double m = 16777216;
  const double eff = link_efficiency(s.cluster.efficiency.inter_node_link, m, 256 * 1024);
  const double t_us = (s.cluster.inter_node_latency_s + m / (s.cluster.nic_bandwidth_Bps * eff)) * 1e6;
  EXPECT_NEAR(predict_case(c, engine_backends(), nominal()), t_us, 1e-9 * t_us);
}

TEST(CollectiveCase, BusBandwidthFactorsOfNcclTests) {
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(TaskKind::AllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(TaskKind::AllGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(TaskKind::ReduceScatter, 2), 0.5);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(TaskKind::AllToAll, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(TaskKind::SendRecv, 2), 1.0);
}

TEST(CollectiveCase, MoreRanksThanTheClusterIsAnErrorAtTheField) {
  AccuracyCase c = load_case_text(
      "kind: collective\nrole: fit\nsource: {citation: c, where: w}\nsetup: s\n"
      "cluster: {preset: dgx-h100, nodes: 1}\ncollective: {op: all_reduce, ranks: 16, bytes: 1024}\n"
      "metric: time_us\nmeasured: 10\n",
      "t.yaml");
  try {
    predict_case(c, engine_backends());
    FAIL() << "predicted";
  } catch (const CaseError& e) {
    EXPECT_NE(std::string(e.what()).find("t.yaml:6:30: error: collective.ranks: ranks (16) exceeds the GPUs of the "
                                         "cluster (1 nodes x 8 = 8)"),
              std::string::npos)
        << e.what();
  }
}

TEST(ScenarioCase, EqualsSimulateOnTheSameScenario) {
  const AccuracyCase c = suite_case("cp-ring-32k");
  LoadOptions opt;
  opt.overrides = {"model.seq_length=32768", "simulation.passes=[forward]"};
  const Scenario s = load_scenario_file(HCPSIM_SOURCE_DIR "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml", opt);
  auto analytic = engine_backends().create("analytic");
  const SimulationResult r = simulate_scenario(s, *analytic);
  ASSERT_GT(r.report.attention_forward_s, 0);
  EXPECT_DOUBLE_EQ(predict_case(c, engine_backends()), r.report.attention_forward_s * 1e3);
  // The override took effect: 32K tokens is less work than the file's 64K.
  const Scenario full = load_scenario_file(HCPSIM_SOURCE_DIR "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml");
  EXPECT_GT(simulate_scenario(full, *analytic).report.attention_forward_s, r.report.attention_forward_s);
}

TEST(ScenarioCase, InlineScenarioEqualsSimulate) {
  const AccuracyCase c = suite_case("inline-scenario");
  const Scenario s = case_scenario(c);
  EXPECT_EQ(s.name, "inline-cp4");
  EXPECT_EQ(s.cp(), 4);
  auto analytic = engine_backends().create("analytic");
  const SimulationResult r = simulate_scenario(s, *analytic);
  EXPECT_DOUBLE_EQ(predict_case(c, engine_backends()),
                   (r.report.attention_forward_s + r.report.attention_backward_s) * 1e3);
}

TEST(ScenarioCase, InvalidInlineScenarioPointsIntoTheCaseFile) {
  const AccuracyCase c = load_case_text(
      "kind: scenario\nrole: fit\nsource: {citation: c, where: w}\nsetup: s\n"
      "scenario:\n  name: x\n  model: {num_layers: 1, hidden_size: 1024, num_attention_heads: 8, seq_length: 1000,\n"
      "          context_parallel_size: 3}\n  cluster: {preset: dgx-h100, nodes: 1}\n"
      "metric: attention_forward_ms\nmeasured: 1\n",
      "inline.yaml");
  try {
    predict_case(c, engine_backends());
    FAIL() << "predicted";
  } catch (const CaseError& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("inline.yaml:5:1: error: scenario: the inline scenario fails validation (below)"), std::string::npos) << w;
    EXPECT_NE(w.find("inline.yaml:8:11: error: model.context_parallel_size: world_size (8) is not divisible by 3"), std::string::npos) << w;
  }
}

TEST(ScenarioCase, MetricNeedsThePassItReads) {
  AccuracyCase c = suite_case("cp-ring-32k");   // forward only
  c.metric = "attention_backward_ms";
  try {
    predict_case(c, engine_backends());
    FAIL() << "predicted";
  } catch (const CaseError& e) {
    EXPECT_NE(std::string(e.what()).find("metric attention_backward_ms needs the backward pass"), std::string::npos)
        << e.what();
  }
}

// train_step_s: the composed whole step (report step.time_s), which adds embedding, output layer,
// DP reduction and the optimizer to the layers: longer than step_s on the same scenario.
TEST(ScenarioCase, TrainStepIsTheComposedStep) {
  const std::string head =
      "kind: scenario\nrole: fit\nsource: {citation: c, where: w}\nsetup: s\n"
      "scenario:\n  name: x\n  model: {num_layers: 4, hidden_size: 1024, num_attention_heads: 8, ffn_hidden_size: 4096,\n"
      "          seq_length: 8192, context_parallel_size: 4, cp_comm_type: dfa, vocab_size: 32000,\n"
      "          recompute_granularity: non_attention}\n  cluster: {preset: dgx-a100, nodes: 1}\n";
  const AccuracyCase c = load_case_text(head + "metric: train_step_s\nmeasured: 1\n", "train.yaml");
  const AccuracyCase layers = load_case_text(head + "metric: step_s\nmeasured: 1\n", "layers.yaml");
  auto analytic = engine_backends().create("analytic");
  const SimulationResult r = simulate_scenario(case_scenario(c), *analytic);
  ASSERT_TRUE(r.report.step.has_value());
  EXPECT_DOUBLE_EQ(predict_case(c, engine_backends()), r.report.step->time_s);
  EXPECT_GT(predict_case(c, engine_backends()), predict_case(layers, engine_backends()));
  AccuracyCase prefill = load_case_text(head + "metric: train_step_s\nmeasured: 1\n", "prefill.yaml");
  prefill.scenario.overrides.push_back("train.mode=prefill");
  try {
    predict_case(prefill, engine_backends());
    FAIL() << "predicted";
  } catch (const CaseError& e) {
    EXPECT_NE(std::string(e.what()).find("metric train_step_s needs train.mode: train"), std::string::npos) << e.what();
  }
}

TEST(Prediction, UnknownBackendNamesTheAvailableOnes) {
  AccuracyCase c = suite_case("kernel-fwd-2k");
  c.backend = "simgrid";   // not registered in this engine-only registry
  try {
    predict_case(c, engine_backends());
    FAIL() << "predicted";
  } catch (const CaseError& e) {
    EXPECT_NE(std::string(e.what()).find("backend 'simgrid' is not in this build; available: analytic, reference"),
              std::string::npos)
        << e.what();
  }
}
