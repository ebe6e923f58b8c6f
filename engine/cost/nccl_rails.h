#pragma once
// Rails: which NICs NCCL spreads one call's inter-node traffic over (cost-model term `nccl_rails`,
// docs/metrics.md section 9.7). Plain counting on the node's shape, no scenario: RouteModel applies
// it with NIC faults and the link bandwidths.
#include <vector>

namespace hcpsim {

// Channels NCCL opens to one remote peer for point-to-point traffic (NCCL_NCHANNELS_PER_NET_PEER's
// default): a send/recv pair never uses more NICs than this.
constexpr int kNcclP2pChannelsPerNetPeer = 2;

// NIC indices (inside the node, before failover) local to GPU `gpu` of a node with `gpus_per_node`
// GPUs and `nics_per_node` NICs spread evenly over them. NCCL gives each GPU the NICs nearest to it
// and round-robins its channels over ceil(local NICs / GPUs sharing them) of them: with at least as
// many NICs as GPUs, GPU g owns NICs g, g + G, g + 2G, ... (nics_per_node / gpus_per_node of them);
// with fewer, gpus_per_node / nics_per_node GPUs share NIC g mod nics_per_node. The first entry is
// always g mod nics_per_node, the NIC hcpsim routes a GPU's traffic through without the term.
std::vector<int> local_nics(int gpu, int nics_per_node, int gpus_per_node);

// Rails one inter-node hop of an NCCL ring collective runs over: one ring (channel) per NIC, as
// NCCL's ring search builds them, so min(NICs on the sending side, NICs on the receiving side,
// channels of the call), at least 1.
int ring_rails(int send_side_nics, int receive_side_nics, int channels);

}  // namespace hcpsim
