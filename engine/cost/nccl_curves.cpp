// Defaults and their sources: docs/metrics.md section 9.2 and 9.1.
#include "engine/cost/nccl_curves.h"

#include <algorithm>
#include <cmath>

#include "engine/cost/nccl_tuning.h"

namespace hcpsim {

BandwidthCurve nccl_bandwidth_curve(TaskKind op, LinkClass c, bool nvls) {
  const bool intra = c == LinkClass::IntraNode;
  switch (op) {
    case TaskKind::AllToAll:
      // One connection per peer: per-peer protocol overhead lowers the plateau and the pieces
      // (bytes / n) are small, so the bend comes at smaller messages than a single stream's.
      return intra ? BandwidthCurve{0.95, 512.0 * 1024} : BandwidthCurve{0.85, 128.0 * 1024};
    case TaskKind::AllGather:
    case TaskKind::ReduceScatter:
      return intra ? BandwidthCurve{1.0, 2.0 * 1024 * 1024} : BandwidthCurve{0.96, 512.0 * 1024};
    case TaskKind::AllReduce:
      // NVLink SHARP (NVLS) reduces in the switch: bus bandwidth above the port's nominal rate. The
      // bend (per ring-step chunk) is fitted on the nccl-tests fit cases (docs/metrics.md 9.6).
      return intra ? BandwidthCurve{nvls ? 1.22 : 1.0, 256.0 * 1024} : BandwidthCurve{0.96, 512.0 * 1024};
    default:
      // send/recv. On the network the level and bend are fitted on the in-application CP ring
      // send/recv times of the Meta CP paper's Table 5 (fit cases; docs/metrics.md 9.6). With the
      // `nccl_p2p_channels` term, CostModel::p2p_efficiency prices a send/recv in its communicator
      // with NCCL's per-peer cap instead of this network level (docs/metrics.md 9.10).
      return intra ? BandwidthCurve{1.0, 1024.0 * 1024} : BandwidthCurve{0.59, 1024.0 * 1024};
  }
}

double nvlink_family_ratio(const std::string& gpu_name) {
  // 8x A100-SXM4 all_reduce, 1 GiB, NCCL 2.18.5: 228.1 GB/s bus bandwidth where the H100-level
  // plateau (0.82 of the 300 GB/s port) predicts 244 GB/s; least squares on that one plateau point.
  const bool ampere = gpu_name.rfind("a100", 0) == 0 || gpu_name.rfind("a800", 0) == 0;
  if (ampere) return 0.935;
  // Blackwell (NVLink 5): NCCL's topology model credits one NVLink with 40.0 GB/s of its 50 GB/s on
  // compute capability 10.x and 20.6 of 25 GB/s on Hopper (SM100_NVLINK_BW, SM90_NVLINK_BW in
  // src/graph/topo.h, NCCL 2.25.1): the same plateau model, relative to Hopper's.
  if (nccl_arch(gpu_name) == NcclArch::Blackwell) return (40.0 / 50.0) / (20.6 / 25.0);
  return 1.0;
}

int nccl_channels(TaskKind op, LinkClass c, double message_bytes, int group_size) {
  const bool intra = c == LinkClass::IntraNode;
  // NCCL's chunk per channel step: NCCL_P2P_NVL_CHUNKSIZE 512 KiB on NVLink, NCCL_P2P_NET_CHUNKSIZE
  // 128 KiB on the network (NCCL environment-variable documentation).
  const double chunk = intra ? 512.0 * 1024 : 128.0 * 1024;
  int limit = 0;
  switch (op) {
    case TaskKind::SendRecv: limit = intra ? 8 : 4; break;
    case TaskKind::AllToAll: limit = std::min(32, 2 * std::max(1, group_size - 1)); break;
    default: limit = intra ? 16 : 8; break;
  }
  const double wanted = std::ceil(std::max(0.0, message_bytes) / chunk);
  return static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(limit)));
}

}  // namespace hcpsim
