#include "engine/cost/cost_model.h"

#include <gtest/gtest.h>

#include "engine/cost/cost_defaults.h"
#include "tests/cost/test_scenario.h"

namespace hcpsim {
namespace {

Task attention_task(TaskGraph& g, Pass p, std::int64_t q, std::int64_t kv, double flops, int rank = 0) {
  AttentionShape s;
  s.q_len = q;
  s.kv_len = kv;
  s.heads = 8;
  s.kv_heads = 8;
  s.head_dim_qk = s.head_dim_v = 128;
  s.section = MaskSection::Full;
  Task t;
  t.rank = rank;
  t.kind = p == Pass::Forward ? TaskKind::AttentionForward : TaskKind::AttentionBackward;
  t.pass = p;
  t.flops = flops;
  t.attention = g.add_attention(s);
  return g.task(g.add_task(t, "attn"));
}

TEST(CostModel, AttentionEfficiencyIsPlateauTimesFalloff) {
  const Scenario s = test::dgx_scenario();
  const CostModel cm(s);
  AttentionShape shape;
  shape.q_len = 4096;
  shape.kv_len = 2048;
  shape.head_dim_qk = 128;
  const double l0 = 80.0;   // documented forward half length
  const double expected = 0.62 * (4096.0 / (4096.0 + l0)) * (2048.0 / (2048.0 + l0));
  EXPECT_NEAR(cm.attention_efficiency(Pass::Forward, shape), expected, 1e-12);
  const double l0b = 150.0;
  const double expected_b = 0.50 * (4096.0 / (4096.0 + l0b)) * (2048.0 / (2048.0 + l0b));
  EXPECT_NEAR(cm.attention_efficiency(Pass::Backward, shape), expected_b, 1e-12);
  // Very long chunks approach the plateau; very short ones fall far below it.
  shape.q_len = shape.kv_len = 1 << 22;
  EXPECT_NEAR(cm.attention_efficiency(Pass::Forward, shape), 0.62, 0.62 * 1e-4);
  shape.q_len = shape.kv_len = 64;
  EXPECT_LT(cm.attention_efficiency(Pass::Forward, shape), 0.62 * 0.4);
}

TEST(CostModel, AttentionSecondsFromFlopsPeakAndOverhead) {
  Scenario s = test::dgx_scenario();
  s.cluster.efficiency.attention_forward = 0.5;
  const CostModel cm(s);
  TaskGraph g;
  const double flops = 4.398e12;
  const Task t = attention_task(g, Pass::Forward, 32768, 32768, flops);
  const double f = 32768.0 / (32768.0 + 80.0);
  const double expected = 2e-6 + flops / (989e12 * 0.5 * f * f);
  EXPECT_NEAR(cm.compute_seconds(g, t), expected, expected * 1e-12);
}

TEST(CostModel, ManySmallRingStepsAreSlowerThanOneBigKernel) {
  const CostModel cm(test::dgx_scenario());
  TaskGraph g;
  // Same total work: one 8192 x 8192 kernel versus 64 kernels of 1024 x 1024.
  const double total = 2.0 * 8 * 256 * 8192.0 * 8192.0;
  const double one = cm.compute_seconds(g, attention_task(g, Pass::Forward, 8192, 8192, total));
  double many = 0;
  for (int i = 0; i < 64; ++i) many += cm.compute_seconds(g, attention_task(g, Pass::Forward, 1024, 1024, total / 64));
  EXPECT_GT(many, one * 1.1);
}

TEST(CostModel, CopiesGemmsAndStragglers) {
  Scenario s = test::dgx_scenario();
  s.cluster.faults.push_back({Fault::Kind::Straggler, 3, 1.5, -1, -1, 1.0});
  const CostModel cm(s);
  TaskGraph g;
  Task c;
  c.kind = TaskKind::Copy;
  c.bytes = 64.0 * 1024 * 1024;
  c.rank = 0;
  const Task copy0 = g.task(g.add_task(c, "copy"));
  c.rank = 3;
  const Task copy3 = g.task(g.add_task(c, "copy"));
  const double expected = 2e-6 + c.bytes / (3.35e12 * 0.80);
  EXPECT_NEAR(cm.compute_seconds(g, copy0), expected, expected * 1e-12);
  EXPECT_NEAR(cm.compute_seconds(g, copy3), 1.5 * expected, expected * 1e-12);
  Task m;
  m.kind = TaskKind::Gemm;
  m.flops = 1e13;
  const Task gemm = g.task(g.add_task(m, "gemm"));
  EXPECT_NEAR(cm.compute_seconds(g, gemm), 2e-6 + 1e13 / (989e12 * 0.75), 1e-12);
  Task comm;
  comm.kind = TaskKind::SendRecv;
  EXPECT_THROW(cm.compute_seconds(g, g.task(g.add_task(comm, "sr"))), std::invalid_argument);
}

TEST(CostModel, LinkEfficiencyFalloffAndLatency) {
  const CostModel cm(test::dgx_scenario());
  const double half_intra = 1024.0 * 1024.0, half_inter = 256.0 * 1024.0;
  EXPECT_NEAR(cm.link_efficiency(half_intra, LinkClass::IntraNode), 0.82 / 2, 1e-12);
  EXPECT_NEAR(cm.link_efficiency(half_inter, LinkClass::InterNode), 0.94 / 2, 1e-12);
  EXPECT_NEAR(cm.link_efficiency(1e12, LinkClass::IntraNode), 0.82, 0.82 * 1e-5);
  double prev = 0;
  for (double m = 1; m < 1e10; m *= 4) {
    const double e = cm.link_efficiency(m, LinkClass::InterNode);
    EXPECT_GT(e, prev);
    prev = e;
  }
  EXPECT_DOUBLE_EQ(cm.latency_s(LinkClass::IntraNode), 2e-6);
  EXPECT_DOUBLE_EQ(cm.latency_s(LinkClass::InterNode), 5e-6);
}

TEST(CostModel, RejectsBadEfficiencyAndStragglerRank) {
  Scenario s = test::dgx_scenario();
  s.cluster.efficiency.gemm = 1.5;
  try {
    CostModel bad(s);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cluster.efficiency.gemm"), std::string::npos);
  }
  s = test::dgx_scenario();
  s.cluster.faults.push_back({Fault::Kind::Straggler, 99, 1.2, -1, -1, 1.0});
  try {
    CostModel bad(s);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cluster.faults[0].rank"), std::string::npos);
  }
}

}  // namespace
}  // namespace hcpsim
