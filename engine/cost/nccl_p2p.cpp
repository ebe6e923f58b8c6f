// NCCL's point-to-point channel rules in hcpsim's terms (release 2.18.5, the release whose tuning
// rows nccl_tuning.cpp uses for Ampere and Hopper); docs/metrics.md section 9.10 gives the formulas,
// the sources and what was fitted.
#include "engine/cost/nccl_p2p.h"

#include <algorithm>
#include <cmath>

#include "engine/cost/nccl_rails.h"

namespace hcpsim {

namespace {

constexpr double kGBps = 1e9;
constexpr int kMaxChannels = 32;                            // MAXCHANNELS
constexpr double kNvlinkChunk_bytes = 512.0 * 1024;         // NCCL_P2P_NVL_CHUNKSIZE default
constexpr double kNetChunk_bytes = 128.0 * 1024;            // NCCL_P2P_NET_CHUNKSIZE default
// One network p2p channel, bytes/s (fitted, docs/metrics.md 9.6 and 9.10).
constexpr double kNetChannel_Bps = 13.8e9;

int pow2_up(int v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

}  // namespace

int nvlinks_per_gpu(NcclArch arch, double intra_node_Bps) {
  const double link_Bps = (arch == NcclArch::Blackwell ? 50.0 : 25.0) * kGBps;
  return std::max(1, static_cast<int>(std::lround(std::max(0.0, intra_node_Bps) / link_Bps)));
}

int nccl_p2p_channels(const NcclP2pComm& comm, double message_bytes) {
  const int ranks = std::max(2, comm.ranks);
  const bool one_node = comm.nodes <= 1;
  // Channels of the communicator: NCCL's ring search on an NVSwitch node opens two per NVLink (24 on
  // a 12-link A100, NVIDIA/nccl-tests issue #100), at most 32; p2p channels round that up to a power of 2.
  const int coll = std::min(kMaxChannels, 2 * std::max(1, comm.nvlinks_per_gpu));
  const int p2p = pow2_up(coll);
  // Per peer: 2 x (path bandwidth / one link's) over NVLink, the network's 2 per remote peer; the
  // minimum over all peers, so one remote peer brings every peer down to 2.
  const int per_peer = pow2_up(one_node ? coll : std::min(coll, kNcclP2pChannelsPerNetPeer));
  int lo = per_peer, hi = per_peer;
  while (lo * ranks > p2p && lo > 1) lo /= 2;
  if (one_node)
    while (hi * ranks > 4 * p2p && hi > 1) hi /= 2;
  const double step = one_node ? kNvlinkChunk_bytes : kNetChunk_bytes;
  const double min_piece = step / 8;
  const double max_piece = one_node ? 32 * step : step;
  const double m = std::max(0.0, message_bytes);
  int channels = lo;
  double piece = std::max(min_piece, std::ceil(m / channels));
  while (piece > max_piece && channels <= hi / 2) {
    channels *= 2;
    piece = std::ceil(m / channels);
  }
  piece = std::ceil(piece / min_piece) * min_piece;   // pieces are aligned to step/8
  const int pieces = static_cast<int>(std::ceil(m / piece));
  return std::clamp(pieces, 1, channels);
}

double nccl_p2p_channel_Bps(NcclArch arch, LinkClass c) {
  if (c == LinkClass::InterNode) return kNetChannel_Bps;
  switch (arch) {
    case NcclArch::Ampere: return 24.0 / 2 * kGBps;
    case NcclArch::Blackwell: return 2 * 38.7 / 2 * kGBps;
    default: return 38.7 / 2 * kGBps;
  }
}

double nccl_p2p_cap_Bps(NcclArch arch, LinkClass c, const NcclP2pComm& comm, double message_bytes) {
  return nccl_p2p_channels(comm, message_bytes) * nccl_p2p_channel_Bps(arch, c);
}

}  // namespace hcpsim
