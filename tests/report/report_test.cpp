#include "engine/report/report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/report/report_events.h"

namespace hcpsim {
namespace {

TraceEvent ev(TaskId id, int rank, TaskKind k, Stream st, double a, double b, const std::string& name,
              std::vector<std::int32_t> peers = {}, double bytes = 0, double flops = 0) {
  return test::report_event(id, rank, k, st, a, b, name, std::move(peers), bytes, flops);
}

// rank 0: A [0,1] attn, S [1,3] send_recv -> 1, B [3,4] merge
// rank 1: C [0,2] attn, S' [2,3] send_recv -> 0, E [2.5,3] copy on cp, D [3,3.5] merge
Trace two_rank_trace(int gpus_per_node) {
  Trace t;
  t.scenario = "hand";
  t.backend = "test";
  t.world_size = 2;
  t.gpus_per_node = gpus_per_node;
  t.events = {ev(0, 0, TaskKind::AttentionForward, Stream::Main, 0, 1, "L0.fwd.s0.attn", {}, 0, 4e12),
              ev(1, 0, TaskKind::SendRecv, Stream::NcclP2P, 1, 3, "L0.fwd.s0.send_recv_kv", {1}, 100),
              ev(2, 0, TaskKind::LseMerge, Stream::Main, 3, 4, "L0.fwd.s0.lse_merge"),
              ev(3, 1, TaskKind::AttentionForward, Stream::Main, 0, 2, "L0.fwd.s0.attn", {}, 0, 2e12),
              ev(4, 1, TaskKind::SendRecv, Stream::NcclP2P, 2, 3, "L0.fwd.s0.send_recv_kv", {0}, 100),
              ev(5, 1, TaskKind::Copy, Stream::Cp, 2.5, 3, "L0.fwd.copy"),
              ev(6, 1, TaskKind::LseMerge, Stream::Main, 3, 3.5, "L0.fwd.s0.lse_merge")};
  return t;
}

TEST(Report, HandTraceMetrics) {
  ReportOptions o;
  o.num_layers = 10;
  const Report r = compute_report(two_rank_trace(1), o);
  EXPECT_DOUBLE_EQ(r.attention_forward_s, 4.0);
  EXPECT_EQ(r.layers.at(0).slowest_rank_forward, 0);
  EXPECT_DOUBLE_EQ(r.makespan_s, 4.0);
  EXPECT_DOUBLE_EQ(r.step_s, 40.0);
  // Critical path: C [0,2] on rank 1, then the exchange (its late member S' [2,3]), then B [3,4].
  ASSERT_EQ(r.critical_path.size(), 3u);
  EXPECT_EQ(r.critical_path[0].task, 3u);
  EXPECT_EQ(r.critical_path[1].task, 4u);
  EXPECT_EQ(r.critical_path[2].task, 2u);
  EXPECT_DOUBLE_EQ(r.critical_path_compute_s, 3.0);
  EXPECT_DOUBLE_EQ(r.critical_path_comm_s, 1.0);
  // S' [2,3] is hidden by E [2.5,3] for half of it.
  EXPECT_DOUBLE_EQ(r.exposed_comm_forward_s, 0.5);
  // Comm busy: rank 0 2 s (none hidden), rank 1 1 s (0.5 hidden).
  EXPECT_DOUBLE_EQ(r.comm_busy_s, 3.0);
  EXPECT_NEAR(r.overlap_fraction, 0.5 / 3.0, 1e-15);
  EXPECT_DOUBLE_EQ(r.bytes_inter_node, 200.0);
  EXPECT_DOUBLE_EQ(r.bytes_intra_node, 0.0);
  EXPECT_NEAR(r.attention_forward_tflops_per_gpu, 6e12 / (2 * 4.0) / 1e12, 1e-12);
  EXPECT_EQ(r.slowest_rank, 0);
  EXPECT_NE(r.slowest_rank_wait.find("send_recv_kv (peers 1)"), std::string::npos);
  EXPECT_FALSE(r.whole_layer);
  EXPECT_FALSE(r.has_backward);
  const Report same_node = compute_report(two_rank_trace(2), o);
  EXPECT_DOUBLE_EQ(same_node.bytes_intra_node, 200.0);
  EXPECT_DOUBLE_EQ(same_node.bytes_inter_node, 0.0);
}

TEST(Report, RingCollectiveBytesGoToTheSuccessor) {
  Trace t;
  t.world_size = 4;
  t.gpus_per_node = 2;
  // rank 1's successor is rank 2 (other node); rank 0's is rank 1 (same node).
  t.events = {ev(0, 0, TaskKind::AllGather, Stream::NcclCp, 0, 1, "ag", {1, 2, 3}, 30),
              ev(1, 1, TaskKind::AllGather, Stream::NcclCp, 0, 1, "ag", {2, 3, 0}, 30),
              ev(2, 2, TaskKind::AllToAll, Stream::NcclCp, 0, 1, "a2a", {3, 0, 1}, 30)};
  const Report r = compute_report(t);
  EXPECT_DOUBLE_EQ(r.bytes_intra_node, 30 + 10);
  EXPECT_DOUBLE_EQ(r.bytes_inter_node, 30 + 20);
}

TEST(Report, WholeLayerAndBackward) {
  Trace t;
  t.world_size = 1;
  t.gpus_per_node = 8;
  TraceEvent g = ev(0, 0, TaskKind::Gemm, Stream::Main, 0, 1, "L0.fwd.qkv");
  TraceEvent a = ev(1, 0, TaskKind::AttentionForward, Stream::Main, 1, 3, "L0.fwd.attn");
  TraceEvent b = ev(2, 0, TaskKind::AttentionBackward, Stream::Main, 3, 8, "L0.bwd.attn");
  b.pass = Pass::Backward;
  TraceEvent gb = ev(3, 0, TaskKind::Gemm, Stream::Main, 8, 10, "L0.bwd.qkv");
  gb.pass = Pass::Backward;
  t.events = {g, a, b, gb};
  const Report r = compute_report(t);
  EXPECT_TRUE(r.whole_layer);
  EXPECT_DOUBLE_EQ(r.attention_forward_s, 2.0);
  EXPECT_DOUBLE_EQ(r.layer_forward_s, 3.0);
  EXPECT_DOUBLE_EQ(r.attention_backward_s, 5.0);
  EXPECT_DOUBLE_EQ(r.layer_backward_s, 7.0);
  EXPECT_EQ(r.critical_path.size(), 4u);
}

TEST(Report, WritersCarryTheContract) {
  const Report r = compute_report(two_rank_trace(1));
  const auto j = nlohmann::json::parse(report_to_json(r));
  for (const char* k : {"scenario", "backend", "world_size", "attention", "layer", "bytes", "tasks", "wall_s"})
    EXPECT_TRUE(j.contains(k)) << k;
  for (const char* k : {"forward_s", "backward_s", "forward_tflops_per_gpu", "backward_tflops_per_gpu",
                        "exposed_comm_forward_s", "exposed_comm_backward_s"})
    EXPECT_TRUE(j["attention"].contains(k)) << k;
  EXPECT_TRUE(j["layer"].contains("forward_s"));
  EXPECT_TRUE(j["bytes"].contains("inter_node"));
  EXPECT_DOUBLE_EQ(j["attention"]["forward_s"].get<double>(), 4.0);
  EXPECT_EQ(j["tasks"].get<int>(), 7);
  EXPECT_FALSE(j.contains("memory"));
  const std::string text = report_to_text(r);
  EXPECT_NE(text.find("attention forward"), std::string::npos);
  EXPECT_NE(text.find("4000.0000"), std::string::npos);   // 4 s in ms
  const std::string csv = report_to_csv(r);
  EXPECT_EQ(csv.rfind("metric,value,unit\n", 0), 0u);
  EXPECT_NE(csv.find("attention_forward_s,4,s"), std::string::npos);
  Report with_mem = r;
  with_mem.memory = MemoryReport{1e9, 8e10, {{"kv buffers", 5e8}}};
  EXPECT_TRUE(nlohmann::json::parse(report_to_json(with_mem)).contains("memory"));
}

TEST(Report, EmptyTraceGivesZeros) {
  const Report r = compute_report(Trace{});
  EXPECT_EQ(r.tasks, 0u);
  EXPECT_EQ(r.critical_path.size(), 0u);
  EXPECT_FALSE(report_to_text(r).empty());
}

}  // namespace
}  // namespace hcpsim
