// NCCL's point-to-point channels (cost-model term `nccl_p2p_channels`, docs/metrics.md section
// 9.10): channels per peer by communicator shape and message size, the per-channel rates, and the
// cap they put on a send/recv flow's efficiency, on and off.
#include "engine/cost/nccl_p2p.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "engine/cost/cost_model.h"
#include "tests/cost/test_scenario.h"

namespace hcpsim {
namespace {

constexpr double MiB = 1024.0 * 1024;

NcclP2pComm comm(int ranks, int nodes, int nvlinks) {
  NcclP2pComm c;
  c.ranks = ranks;
  c.nodes = nodes;
  c.nvlinks_per_gpu = nvlinks;
  return c;
}

TEST(NcclP2p, NvlinksFromThePortBandwidth) {
  EXPECT_EQ(nvlinks_per_gpu(NcclArch::Ampere, 300e9), 12);
  EXPECT_EQ(nvlinks_per_gpu(NcclArch::Hopper, 450e9), 18);
  EXPECT_EQ(nvlinks_per_gpu(NcclArch::Hopper, 200e9), 8);       // H800
  EXPECT_EQ(nvlinks_per_gpu(NcclArch::Blackwell, 900e9), 18);   // NVLink 5: 50 GB/s per link
  EXPECT_EQ(nvlinks_per_gpu(NcclArch::Hopper, 0), 1);
}

TEST(NcclP2p, ChannelsOfAnEightRankA100Node) {
  // Worked by hand from NCCL 2.18.5's rules: 12 NVLinks -> 24 ring channels, 32 p2p channels and 32
  // per peer; with 8 ranks the message starts on 32 / 8 = 4 channels and may grow to 4 * 32 / 8 = 16,
  // doubling while a piece is above 32 x 512 KiB = 16 MiB.
  const NcclP2pComm a100 = comm(8, 1, 12);
  EXPECT_EQ(nccl_p2p_channels(a100, 1024.0 * MiB), 16);   // 4 -> 8 -> 16 pieces of 64 MiB: the cap stops the doubling
  EXPECT_EQ(nccl_p2p_channels(a100, 256.0 * MiB), 16);    // 16 pieces of 16 MiB
  EXPECT_EQ(nccl_p2p_channels(a100, 128.0 * MiB), 8);     // 8 pieces of 16 MiB
  EXPECT_EQ(nccl_p2p_channels(a100, 16.0 * MiB), 4);      // 4 pieces of 4 MiB
  EXPECT_EQ(nccl_p2p_channels(a100, 100.0 * 1024), 2);    // pieces of at least 512 KiB / 8: two of 64 KiB
  EXPECT_EQ(nccl_p2p_channels(a100, 1000), 1);
  EXPECT_EQ(nccl_p2p_channels(a100, 0), 1);
}

TEST(NcclP2p, ChannelsDependOnRanksNodesAndLinks) {
  // Two ranks on one node: from 16 channels up to all 32.
  EXPECT_EQ(nccl_p2p_channels(comm(2, 1, 12), 1024.0 * MiB), 32);
  EXPECT_EQ(nccl_p2p_channels(comm(2, 1, 12), 64.0 * MiB), 16);
  // H800 (8 NVLinks): 16 channels in all, 2 to 8 per message with 8 ranks.
  EXPECT_EQ(nccl_p2p_channels(comm(8, 1, 8), 256.0 * MiB), 8);
  EXPECT_EQ(nccl_p2p_channels(comm(8, 1, 8), 16.0 * MiB), 2);
  // Several nodes: 2 channels per peer for every peer (NCCL_NCHANNELS_PER_NET_PEER), NVLink peers too.
  EXPECT_EQ(nccl_p2p_channels(comm(4, 4, 18), 16.0 * MiB), 2);
  EXPECT_EQ(nccl_p2p_channels(comm(16, 2, 12), 256.0 * MiB), 2);
  EXPECT_EQ(nccl_p2p_channels(comm(64, 8, 18), 16.0 * MiB), 2);   // starts on 1, a 16 MiB piece > 128 KiB doubles it
  EXPECT_EQ(nccl_p2p_channels(comm(64, 8, 18), 100.0 * 1024), 1);
}

TEST(NcclP2p, PerChannelRates) {
  // Half of NCCL's per-channel tree cap on one node (24.0 / 38.7 / 2 x 38.7 GB/s): each half of a
  // channel's CTA drives one direction.
  EXPECT_DOUBLE_EQ(nccl_p2p_channel_Bps(NcclArch::Ampere, LinkClass::IntraNode), 12.0e9);
  EXPECT_DOUBLE_EQ(nccl_p2p_channel_Bps(NcclArch::Hopper, LinkClass::IntraNode), 19.35e9);
  EXPECT_DOUBLE_EQ(nccl_p2p_channel_Bps(NcclArch::Blackwell, LinkClass::IntraNode), 38.7e9);
  // Network: fitted on the Meta fit cases, one value for every GPU.
  EXPECT_DOUBLE_EQ(nccl_p2p_channel_Bps(NcclArch::Ampere, LinkClass::InterNode), 13.8e9);
  EXPECT_DOUBLE_EQ(nccl_p2p_channel_Bps(NcclArch::Hopper, LinkClass::InterNode), 13.8e9);
  EXPECT_DOUBLE_EQ(nccl_p2p_cap_Bps(NcclArch::Ampere, LinkClass::IntraNode, comm(8, 1, 12), 256.0 * MiB), 16 * 12.0e9);
}

TEST(NcclP2p, CommunicatorOfASendRecvOp) {
  // Members 0, 8 and 9 of a 2 x 8 A100 cluster: 3 ranks on 2 nodes, 12 NVLinks per GPU.
  Scenario s = test::dgx_scenario(2, 8);
  s.cluster.gpu.name = "a100-sxm-80gb";
  s.cluster.intra_node_bandwidth_Bps = 300e9;
  CommOp op;
  op.ranks = {0, 8, 9};
  const NcclP2pComm c = CostModel(s).p2p_comm(op);
  EXPECT_EQ(c.ranks, 3);
  EXPECT_EQ(c.nodes, 2);
  EXPECT_EQ(c.nvlinks_per_gpu, 12);
  op.ranks = {8, 9, 10, 11};
  EXPECT_EQ(CostModel(s).p2p_comm(op).nodes, 1);
}

Scenario a100_node(bool term, bool curves) {
  Scenario s = test::dgx_scenario();
  s.cluster.gpu.name = "a100-sxm-80gb";
  s.cluster.intra_node_bandwidth_Bps = 300e9;
  s.cluster.efficiency.terms.nccl_p2p_channels = term;
  s.cluster.efficiency.terms.bandwidth_curves = curves;
  return s;
}

TEST(NcclP2p, CapsTheSendRecvEfficiencyOnNvlink) {
  const double m = 256.0 * MiB;
  const double bend = m / (m + MiB);
  const NcclP2pComm ring8 = comm(8, 1, 12);
  // On: 16 channels x 12 GB/s = 192 GB/s of the 300 GB/s port, below the A100 link level 0.82 x 0.935.
  const CostModel on(a100_node(true, true));
  EXPECT_NEAR(on.p2p_efficiency(m, LinkClass::IntraNode, 300e9, ring8), 192e9 / 300e9 * bend, 1e-12);
  // A pair alone gets 32 channels (384 GB/s): the link level binds again.
  EXPECT_NEAR(on.p2p_efficiency(1024.0 * MiB, LinkClass::IntraNode, 300e9, comm(2, 1, 12)),
              on.link_efficiency(TaskKind::SendRecv, 1024.0 * MiB, LinkClass::IntraNode), 1e-12);
  // Off: the send/recv curve, whatever the communicator.
  const CostModel off(a100_node(false, true));
  EXPECT_DOUBLE_EQ(off.p2p_efficiency(m, LinkClass::IntraNode, 300e9, ring8),
                   off.link_efficiency(TaskKind::SendRecv, m, LinkClass::IntraNode));
  EXPECT_GT(off.p2p_efficiency(m, LinkClass::IntraNode, 300e9, ring8), on.p2p_efficiency(m, LinkClass::IntraNode, 300e9, ring8));
  // Without bandwidth curves the cap still applies, on section 2's send/recv curve.
  const CostModel nominal(a100_node(true, false));
  EXPECT_NEAR(nominal.p2p_efficiency(m, LinkClass::IntraNode, 300e9, ring8), 192e9 / 300e9 * bend, 1e-12);
}

TEST(NcclP2p, NetworkCapReplacesTheFittedSendRecvRatio) {
  const double m = 16.0 * MiB;
  const double bend = m / (m + MiB);
  const NcclP2pComm meta = comm(4, 4, 18);
  Scenario s = test::dgx_scenario(4, 1);
  s.cluster.efficiency.terms.bandwidth_curves = true;
  s.cluster.efficiency.terms.nccl_p2p_channels = true;
  const CostModel on(s);
  // 400 Gb/s NIC: two channels of 13.8 GB/s bind below the link level 0.94 x 50 GB/s.
  EXPECT_NEAR(on.p2p_efficiency(m, LinkClass::InterNode, 50e9, meta), 2 * 13.8e9 / 50e9 * bend, 1e-12);
  // 100 Gb/s NIC: the NIC binds, at the link level, far above the fitted ratio 0.59 the term replaces.
  EXPECT_NEAR(on.p2p_efficiency(m, LinkClass::InterNode, 12.5e9, meta), 0.94 * bend, 1e-12);
  s.cluster.efficiency.terms.nccl_p2p_channels = false;
  const CostModel off(s);
  EXPECT_NEAR(off.p2p_efficiency(m, LinkClass::InterNode, 12.5e9, meta), 0.94 * 0.59 * bend, 1e-12);
  // The cap is the fitted ratio's level on the NIC it was fitted on (within the fit's rounding).
  EXPECT_NEAR(on.p2p_efficiency(m, LinkClass::InterNode, 50e9, meta) / off.p2p_efficiency(m, LinkClass::InterNode, 50e9, meta),
              1.0, 0.01);
}

}  // namespace
}  // namespace hcpsim
