// NCCL's ring-collective cost model in hcpsim's terms. The constants are those of
// src/graph/tuning.cc in NVIDIA/nccl (Ampere and Hopper rows as of release 2.18.5, Blackwell rows as
// of 2.25.1, the first of the two to have them); docs/metrics.md sections 9.8 and 9.9 give the
// formulas and why each constant is what it is.
#include "engine/cost/nccl_tuning.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "engine/scenario/gpu_family.h"

namespace hcpsim {

namespace {

constexpr double kUs = 1e-6;
constexpr double kGBps = 1e9;

// Index: LL, LL128, Simple.
std::size_t idx(NcclProtocol p) { return static_cast<std::size_t>(p); }

// Fixed latency of one ring call (us) and per-step latency of a hop over NVLink and over the
// network (us), per protocol.
constexpr double kRingBase_us[3] = {6.6, 14.0, 8.4};
constexpr double kRingNvlinkStep_us[3] = {0.6, 1.9, 3.4};
constexpr double kRingNetStep_us[3] = {2.7, 4.0, 14.0};
// Across nodes the proxy thread posts every step to the network: at least this per step (us; an
// x86 Intel host's 1 us, three times for Simple).
constexpr double kNetPostOverhead_us[3] = {1.0, 1.0, 3.0};

struct ArchRows {
  double ll_cap_one_node_GBps;   // LL bus bandwidth cap on one node
  double ll_fraction;            // LL bus bandwidth / Simple's
  double ll128_channel_GBps;     // LL128 cap per channel
};

ArchRows rows(NcclArch a) {
  switch (a) {
    case NcclArch::Ampere: return {87.7, 0.25, 20.0};
    case NcclArch::Blackwell: return {2 * 141.0, 0.5, 2 * 36.7};
    default: return {87.7, 0.25, 36.7};
  }
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

const char* to_string(NcclProtocol p) {
  switch (p) {
    case NcclProtocol::LL: return "LL";
    case NcclProtocol::LL128: return "LL128";
    default: return "Simple";
  }
}

NcclArch nccl_arch(const std::string& gpu_name) {
  if (starts_with(gpu_name, "a100") || starts_with(gpu_name, "a800")) return NcclArch::Ampere;
  if (is_blackwell_gpu(gpu_name)) return NcclArch::Blackwell;
  return NcclArch::Hopper;
}

int nccl_ring_steps(const NcclRingShape& s) {
  const int n = std::max(1, s.ranks);
  return s.op == TaskKind::AllReduce ? 2 * (n - 1) : n - 1;
}

int nccl_ring_inter_steps(const NcclRingShape& s) {
  if (s.nodes <= 1) return 0;
  return s.op == TaskKind::AllReduce ? 2 * (s.nodes - 1) : s.nodes - 1;
}

double nccl_ring_latency_s(NcclProtocol p, const NcclRingShape& s) {
  const std::size_t i = idx(p);
  const int steps = nccl_ring_steps(s);
  const int inter = std::min(steps, nccl_ring_inter_steps(s));
  double intra_step = kRingNvlinkStep_us[i];
  if (s.nodes > 1) intra_step = std::max(intra_step, kNetPostOverhead_us[i]);
  double lat = kRingBase_us[i] + (steps - inter) * intra_step + inter * kRingNetStep_us[i];
  // NCCL's correction for multi-node Simple all_reduce rings (compute capability 8.0 and newer).
  if (p == NcclProtocol::Simple && s.nodes > 1 && s.op == TaskKind::AllReduce) lat *= 1.4;
  return lat * kUs;
}

double nccl_protocol_bus_Bps(NcclProtocol p, NcclArch arch, const NcclRingShape& s, double simple_bus_Bps) {
  const ArchRows r = rows(arch);
  switch (p) {
    case NcclProtocol::LL: {
      // One node: the GPU generation's cap; several: the host's (x86 Intel row: 2 nodes, more).
      const double cap_GBps = s.nodes <= 1 ? r.ll_cap_one_node_GBps : s.nodes == 2 ? 39.0 : 20.4;
      return std::min(cap_GBps * kGBps, r.ll_fraction * simple_bus_Bps);
    }
    case NcclProtocol::LL128:
      return std::min(0.92 * simple_bus_Bps, std::max(1, s.channels) * r.ll128_channel_GBps * kGBps);
    default: return simple_bus_Bps;
  }
}

NcclRingChoice nccl_ring_choice(NcclArch arch, const NcclRingShape& s, double chunk_bytes, double simple_bus_Bps,
                                bool choose_protocol) {
  if (!(simple_bus_Bps > 0)) throw std::invalid_argument("nccl_ring_choice: simple_bus_Bps must be > 0");
  const double moved = nccl_ring_steps(s) * std::max(0.0, chunk_bytes);
  NcclRingChoice best;
  double best_s = std::numeric_limits<double>::infinity();
  for (const NcclProtocol p : {NcclProtocol::Simple, NcclProtocol::LL128, NcclProtocol::LL}) {
    if (!choose_protocol && p != NcclProtocol::Simple) continue;
    const double bus = nccl_protocol_bus_Bps(p, arch, s, simple_bus_Bps);
    const double lat = nccl_ring_latency_s(p, s);
    const double t = lat + moved / bus;
    if (t < best_s) {
      best_s = t;
      best = {p, lat, bus / simple_bus_Bps};
    }
  }
  return best;
}

}  // namespace hcpsim
