#pragma once
// How many channels NCCL gives one point-to-point transfer and how fast one channel moves data: the
// cost-model term `nccl_p2p_channels` (docs/metrics.md section 9.10). A send/recv flow reaches at
// most channels x per-channel rate, whatever the link could carry. Plain arithmetic on the
// communicator's shape; CostModel::p2p_efficiency applies it to a route.
#include "engine/cost/cost_model.h"
#include "engine/cost/nccl_tuning.h"

namespace hcpsim {

// The NCCL communicator a send/recv runs in, as NCCL's channel rules see it.
struct NcclP2pComm {
  int ranks = 2;              // members of the communicator
  int nodes = 1;              // distinct nodes among them
  int nvlinks_per_gpu = 12;   // NVLinks of one GPU (NVSwitch systems: each GPU reaches every peer over all of them)
};

// NVLinks of one GPU: its NVLink port bandwidth per direction over one link's (25 GB/s for NVLink 3
// and 4, 50 GB/s for NVLink 5 on Blackwell), rounded, at least 1. A100 300 GB/s -> 12, H100 450 -> 18,
// H800 200 -> 8, B200 900 -> 18.
int nvlinks_per_gpu(NcclArch arch, double intra_node_Bps);

// Channels NCCL 2.18.5 stripes one send of `message_bytes` to one peer over, in communicator `comm`
// (src/graph/paths.cc ncclTopoComputeP2pChannels, src/enqueue.cc scheduleP2pTasksToPlan and
// calcP2pChunkSize). With p2p = pow2Up(min(32, 2 x nvlinks)) channels in the communicator:
//   per_peer = pow2Up(min(32, 2 x nvlinks))        one node
//            = NCCL_NCHANNELS_PER_NET_PEER = 2      several nodes (the minimum over every peer,
//                                                   NVLink peers included)
//   lo = per_peer halved while lo x ranks > p2p;   hi = per_peer, on one node halved while hi x ranks > 4 p2p
//   step = 512 KiB (NVLink chunk) on one node, 128 KiB (network chunk) on several
//   the message is cut into pieces of max(step/8, message/lo), doubling the channels up to hi while a
//   piece exceeds 32 step (one node) or step (several): channels = pieces, at least 1.
int nccl_p2p_channels(const NcclP2pComm& comm, double message_bytes);

// Bytes/s one p2p channel moves in one direction. NVLink: half of NCCL's per-channel Simple cap of
// its tree kernel on one node (perChMaxTreeBws of src/graph/tuning.cc: Ampere 24.0, Hopper 38.7,
// Blackwell 77.4 GB/s), because the p2p kernel, like the tree kernel, splits each channel's CTA
// into two halves that drive two flows at once (here the send and the receive): 12.0, 19.35 and
// 38.7 GB/s. Network: fitted on the Meta CP paper's in-application ring send/recv times (fit cases
// meta-cp4-sendrecv-*), the same for every GPU.
double nccl_p2p_channel_Bps(NcclArch arch, LinkClass c);

// Bytes/s a send/recv flow of `message_bytes` in `comm` can reach at most through NCCL:
// nccl_p2p_channels x nccl_p2p_channel_Bps (the hop's class picks the rate).
double nccl_p2p_cap_Bps(NcclArch arch, LinkClass c, const NcclP2pComm& comm, double message_bytes);

}  // namespace hcpsim
