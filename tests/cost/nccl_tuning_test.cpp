// NCCL's ring-collective model (cost-model terms `nccl_ring_latency` and `nccl_protocols`,
// docs/metrics.md sections 9.8 and 9.9): steps, latency per protocol, protocol bandwidths, and the
// protocol NCCL picks by size.
#include "engine/cost/nccl_tuning.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "engine/cost/nccl_curves.h"

namespace hcpsim {
namespace {

NcclRingShape shape(TaskKind op, int ranks, int nodes, int channels = 16) {
  NcclRingShape s;
  s.op = op;
  s.ranks = ranks;
  s.nodes = nodes;
  s.channels = channels;
  return s;
}

TEST(NcclTuning, StepsAndNodeCrossingSteps) {
  EXPECT_EQ(nccl_ring_steps(shape(TaskKind::AllReduce, 8, 1)), 14);
  EXPECT_EQ(nccl_ring_steps(shape(TaskKind::AllGather, 8, 1)), 7);
  EXPECT_EQ(nccl_ring_steps(shape(TaskKind::ReduceScatter, 16, 2)), 15);
  EXPECT_EQ(nccl_ring_inter_steps(shape(TaskKind::AllReduce, 8, 1)), 0);
  EXPECT_EQ(nccl_ring_inter_steps(shape(TaskKind::AllReduce, 16, 2)), 2);
  EXPECT_EQ(nccl_ring_inter_steps(shape(TaskKind::AllGather, 32, 4)), 3);
}

TEST(NcclTuning, RingLatencyPaysTheNetworkOnNodeCrossingStepsOnly) {
  // One node, Simple: 8.4 us + 14 NVLink steps of 3.4 us.
  EXPECT_NEAR(nccl_ring_latency_s(NcclProtocol::Simple, shape(TaskKind::AllReduce, 8, 1)), (8.4 + 14 * 3.4) * 1e-6, 1e-12);
  // Two nodes, 16 ranks: 28 NVLink steps and 2 network steps of 14 us, times 1.4 (multi-node Simple all_reduce).
  EXPECT_NEAR(nccl_ring_latency_s(NcclProtocol::Simple, shape(TaskKind::AllReduce, 16, 2)),
              1.4 * (8.4 + 28 * 3.4 + 2 * 14.0) * 1e-6, 1e-12);
  // Far below 30 steps at the network's per-step latency.
  EXPECT_LT(nccl_ring_latency_s(NcclProtocol::Simple, shape(TaskKind::AllReduce, 16, 2)), 30 * 14.0e-6);
  // No 1.4 for all_gather; LL's NVLink step rises to the 1 us network post overhead across nodes.
  EXPECT_NEAR(nccl_ring_latency_s(NcclProtocol::Simple, shape(TaskKind::AllGather, 16, 2)), (8.4 + 14 * 3.4 + 14.0) * 1e-6, 1e-12);
  EXPECT_NEAR(nccl_ring_latency_s(NcclProtocol::LL, shape(TaskKind::AllGather, 16, 2)), (6.6 + 14 * 1.0 + 2.7) * 1e-6, 1e-12);
  EXPECT_NEAR(nccl_ring_latency_s(NcclProtocol::LL128, shape(TaskKind::AllGather, 8, 1)), (14.0 + 7 * 1.9) * 1e-6, 1e-12);
}

TEST(NcclTuning, ProtocolBandwidthsFollowTheArchitectureRows) {
  const double simple = 300e9;
  // LL: a quarter of Simple on Ampere, capped at 87.7 GB/s on one node and 39 GB/s on two.
  EXPECT_NEAR(nccl_protocol_bus_Bps(NcclProtocol::LL, NcclArch::Ampere, shape(TaskKind::AllReduce, 8, 1), simple), 75e9, 1);
  EXPECT_NEAR(nccl_protocol_bus_Bps(NcclProtocol::LL, NcclArch::Ampere, shape(TaskKind::AllReduce, 8, 1), 400e9), 87.7e9, 1);
  EXPECT_NEAR(nccl_protocol_bus_Bps(NcclProtocol::LL, NcclArch::Hopper, shape(TaskKind::AllReduce, 16, 2), simple), 39e9, 1);
  // Blackwell: half of Simple, up to 282 GB/s.
  EXPECT_NEAR(nccl_protocol_bus_Bps(NcclProtocol::LL, NcclArch::Blackwell, shape(TaskKind::AllReduce, 4, 1), simple), 150e9, 1);
  // LL128: 120/128 of the line (0.92 in NCCL's model), at most a per-channel cap per channel.
  EXPECT_NEAR(nccl_protocol_bus_Bps(NcclProtocol::LL128, NcclArch::Hopper, shape(TaskKind::AllReduce, 8, 1, 16), simple), 276e9, 1);
  EXPECT_NEAR(nccl_protocol_bus_Bps(NcclProtocol::LL128, NcclArch::Ampere, shape(TaskKind::AllReduce, 8, 1, 4), simple), 80e9, 1);
  EXPECT_DOUBLE_EQ(nccl_protocol_bus_Bps(NcclProtocol::Simple, NcclArch::Ampere, shape(TaskKind::AllReduce, 8, 1), simple), simple);
}

TEST(NcclTuning, SmallMessagesPickLowLatencyProtocolsLargeOnesSimple) {
  const NcclRingShape s = shape(TaskKind::AllReduce, 8, 1);
  const double simple = 230e9;
  const NcclRingChoice small = nccl_ring_choice(NcclArch::Ampere, s, 1 << 14, simple, true);
  EXPECT_EQ(small.protocol, NcclProtocol::LL);
  EXPECT_NEAR(small.bandwidth_factor, 0.25, 1e-12);
  const NcclRingChoice large = nccl_ring_choice(NcclArch::Ampere, s, 128.0 * (1 << 20), simple, true);
  EXPECT_EQ(large.protocol, NcclProtocol::Simple);
  EXPECT_DOUBLE_EQ(large.bandwidth_factor, 1.0);
  // The choice is the fastest of the three.
  for (const double chunk : {1e3, 1e4, 1e5, 1e6, 1e7}) {
    const NcclRingChoice c = nccl_ring_choice(NcclArch::Hopper, s, chunk, 369e9, true);
    const double chosen = c.latency_s + 14 * chunk / (369e9 * c.bandwidth_factor);
    for (const NcclProtocol p : {NcclProtocol::LL, NcclProtocol::LL128, NcclProtocol::Simple})
      EXPECT_LE(chosen, nccl_ring_latency_s(p, s) + 14 * chunk / nccl_protocol_bus_Bps(p, NcclArch::Hopper, s, 369e9) + 1e-15)
          << chunk << " " << to_string(p);
  }
  // With the `nccl_protocols` term off: Simple whatever the size.
  const NcclRingChoice off = nccl_ring_choice(NcclArch::Ampere, s, 1 << 14, simple, false);
  EXPECT_EQ(off.protocol, NcclProtocol::Simple);
  EXPECT_NEAR(off.latency_s, nccl_ring_latency_s(NcclProtocol::Simple, s), 1e-15);
  EXPECT_THROW(nccl_ring_choice(NcclArch::Ampere, s, 1e6, 0.0, true), std::invalid_argument);
}

TEST(NcclTuning, GpuGenerations) {
  EXPECT_EQ(nccl_arch("a100-sxm-80gb"), NcclArch::Ampere);
  EXPECT_EQ(nccl_arch("h100-sxm"), NcclArch::Hopper);
  EXPECT_EQ(nccl_arch("h200-sxm"), NcclArch::Hopper);
  EXPECT_EQ(nccl_arch("gb200"), NcclArch::Blackwell);
  EXPECT_EQ(nccl_arch("b200"), NcclArch::Blackwell);
  EXPECT_EQ(nccl_arch("my-gpu"), NcclArch::Hopper);
  // NVLink plateau relative to Hopper's: NCCL's 40.0 of 50 GB/s per NVLink 5 link against 20.6 of 25.
  EXPECT_NEAR(nvlink_family_ratio("gb200"), 0.8 / 0.824, 1e-12);
  EXPECT_DOUBLE_EQ(nvlink_family_ratio("h100-sxm"), 1.0);
}

}  // namespace
}  // namespace hcpsim
