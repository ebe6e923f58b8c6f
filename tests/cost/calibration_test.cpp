#include "engine/cost/calibration.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "engine/cost/cost_model.h"
#include "tests/cost/test_scenario.h"

namespace hcpsim {
namespace {

const char* kCalib = R"(hardware: 8x H100 SXM
software: TE 2.4
kernel_overhead_s: 3.0e-6
attention:
  - {pass: forward, head_dim: 128, mask: none, q_len: 1024, kv_len: 1024, efficiency: 0.40}
  - {pass: forward, head_dim: 128, mask: none, q_len: 4096, kv_len: 4096, efficiency: 0.60}
gemm:
  - {flops: 1.0e9, efficiency: 0.2}
  - {flops: 1.0e12, efficiency: 0.8}
links:
  intra_node:
    - {op: send_recv, bytes: 1048576, efficiency: 0.3}
    - {op: send_recv, bytes: 268435456, efficiency: 0.9}
)";

std::string write_temp(const std::string& text) {
  char name[] = "/tmp/hcpsim_calib_XXXXXX";
  const int fd = mkstemp(name);
  EXPECT_GE(fd, 0);
  std::ofstream(name) << text;
  return name;
}

TEST(Calibration, InterpolatesInLogLength) {
  EXPECT_DOUBLE_EQ(interpolate_log_x({{1, 10}, {100, 30}}, 10), 20);
  EXPECT_DOUBLE_EQ(interpolate_log_x({{100, 30}, {1, 10}}, 0.5), 10);    // clamped low
  EXPECT_DOUBLE_EQ(interpolate_log_x({{1, 10}, {100, 30}}, 1000), 30);   // clamped high
  EXPECT_DOUBLE_EQ(interpolate_log_x({{1, 10}, {1, 20}}, 1), 15);        // duplicates averaged
}

TEST(Calibration, TablesReplaceDefaultsForCoveredShapes) {
  Scenario s = test::dgx_scenario();
  s.cluster.calibration_path = write_temp(kCalib);
  const CostModel cm(s);
  AttentionShape shape;
  shape.head_dim_qk = 128;
  shape.section = MaskSection::Lower;   // unmasked
  shape.q_len = shape.kv_len = 2048;    // halfway between 1024 and 4096 in log
  EXPECT_NEAR(cm.attention_efficiency(Pass::Forward, shape), 0.50, 1e-12);
  // Not covered: other head dim, causal mask, backward -> defaults.
  shape.head_dim_qk = 64;
  const double f = 2048.0 / (2048.0 + 80.0);
  EXPECT_NEAR(cm.attention_efficiency(Pass::Forward, shape), 0.62 * f * f, 1e-12);
  shape.head_dim_qk = 128;
  shape.section = MaskSection::Diagonal;
  EXPECT_NEAR(cm.attention_efficiency(Pass::Forward, shape), 0.62 * f * f, 1e-12);
  EXPECT_NEAR(cm.gemm_efficiency(std::sqrt(1e9 * 1e12)), 0.5, 1e-12);
  EXPECT_NEAR(cm.link_efficiency(16777216, LinkClass::IntraNode), 0.6, 1e-12);   // 2^24: log-midpoint
  EXPECT_NEAR(cm.link_efficiency(256.0 * 1024, LinkClass::InterNode), 0.94 / 2, 1e-12);   // default
  EXPECT_DOUBLE_EQ(cm.kernel_overhead_s(), 3.0e-6);
  std::remove(s.cluster.calibration_path.c_str());
}

TEST(Calibration, RoundTripsThroughYaml) {
  const Calibration c = load_calibration_string(kCalib, "calib.yaml");
  const Calibration d = load_calibration_string(calibration_to_yaml(c), "again.yaml");
  ASSERT_EQ(d.attention.size(), 2u);
  EXPECT_DOUBLE_EQ(d.attention[1].efficiency, 0.60);
  EXPECT_FALSE(d.attention[1].causal);
  ASSERT_EQ(d.intra_node.size(), 2u);
  EXPECT_DOUBLE_EQ(d.intra_node[1].bytes, 268435456);
  EXPECT_EQ(d.hardware, "8x H100 SXM");
}

TEST(Calibration, ErrorsNameFileLineAndField) {
  auto message = [](const std::string& yaml) {
    try {
      load_calibration_string(yaml, "c.yaml");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("attention:\n  - {pass: sideways, head_dim: 128, mask: none, q_len: 1, kv_len: 1, efficiency: 0.5}\n")
                .find("c.yaml:2"), std::string::npos);
  EXPECT_NE(message("gemm:\n  - {flops: 1e9, efficiency: 1.5}\n").find("gemm[0].efficiency"), std::string::npos);
  EXPECT_NE(message("linkz: {}\n").find("unknown key"), std::string::npos);
  EXPECT_NE(message("links:\n  intra_node:\n    - {op: broadcast, bytes: 1, efficiency: 0.5}\n")
                .find("links.intra_node[0].op"), std::string::npos);
  EXPECT_NE(message("gemm: [{flops: lots, efficiency: 0.5}]\n").find("expected a number"), std::string::npos);
  EXPECT_THROW(load_calibration_file("/nonexistent/calib.yaml"), std::runtime_error);
}

}  // namespace
}  // namespace hcpsim

namespace hcpsim {
namespace {

TEST(Calibration, TermParametersAndPerOpCurvesReplaceTheScenarios) {
  const char* text = R"(hardware: test
comm_hbm_interference: 0.25
nccl_launch_s: 3.0e-6
ring_step_sync_s: 4.0e-5
links:
  intra_node:
    - {op: send_recv, bytes: 1048576, efficiency: 0.3}
    - {op: all_to_all, bytes: 1048576, efficiency: 0.2}
    - {op: all_reduce, bytes: 1048576, efficiency: 0.7}
)";
  const Calibration c = load_calibration_string(text, "terms.yaml");
  ASSERT_TRUE(c.comm_hbm_interference && c.nccl_launch_s && c.ring_step_sync_s);
  const Calibration again = load_calibration_string(calibration_to_yaml(c), "again.yaml");
  EXPECT_DOUBLE_EQ(*again.comm_hbm_interference, 0.25);
  EXPECT_DOUBLE_EQ(*again.ring_step_sync_s, 4.0e-5);
  EXPECT_EQ(again.intra_node.size(), 3u);
  Scenario s = test::dgx_scenario();
  s.cluster.efficiency.terms.host_overheads = true;
  s.cluster.efficiency.terms.bandwidth_curves = true;
  s.cluster.calibration_path = write_temp(text);
  const CostModel cm(s);
  Task ring;
  ring.kind = TaskKind::SendRecv;
  ring.step = 0;
  EXPECT_DOUBLE_EQ(cm.comm_overhead_s(ring), 3.0e-6 + 4.0e-5);
  // Each op reads its own entries; an op without entries (all_gather) falls back to send_recv's.
  EXPECT_DOUBLE_EQ(cm.link_efficiency(TaskKind::AllToAll, 1048576, LinkClass::IntraNode), 0.2);
  EXPECT_DOUBLE_EQ(cm.link_efficiency(TaskKind::AllReduce, 1048576, LinkClass::IntraNode), 0.7);
  EXPECT_DOUBLE_EQ(cm.link_efficiency(TaskKind::AllGather, 1048576, LinkClass::IntraNode), 0.3);
  // Curves term off: every op uses the send/recv entries.
  s.cluster.efficiency.terms.bandwidth_curves = false;
  EXPECT_DOUBLE_EQ(CostModel(s).link_efficiency(TaskKind::AllToAll, 1048576, LinkClass::IntraNode), 0.3);
  std::remove(s.cluster.calibration_path.c_str());
  EXPECT_THROW(load_calibration_string("ring_step_sync_s: -1\n", "bad.yaml"), std::runtime_error);
}

}  // namespace
}  // namespace hcpsim
