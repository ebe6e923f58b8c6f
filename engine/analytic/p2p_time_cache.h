#pragma once
// P2pTimeCache: RouteModel::p2p_transfer_seconds remembered per send/recv op. One transfer's time
// alone on its route is a pure function of the route's class, bottleneck bandwidth and latency, the
// bytes and the op's NCCL communicator; the transfers of one op share the communicator and mostly
// the same few (route, bytes) keys (an intra-node and an inter-node hop of one ring step), so each op
// keeps its last kSlots distinct keys and their seconds. An op with more distinct keys than that
// still gets the exact answer, only computed again. Every answer equals p2p_transfer_seconds's bit for
// bit (the same call, made once per key). Not thread-safe; one per run.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/cost/nccl_p2p.h"
#include "engine/cost/route.h"

namespace hcpsim {

class P2pTimeCache {
 public:
  // `routes` must outlive the cache; `ops` is the number of comm ops of the graph.
  P2pTimeCache(const RouteModel& routes, std::size_t ops) : routes_(routes), ops_(ops) {}

  // == routes.p2p_transfer_seconds(r, bytes, comm) where `comm` is op `op`'s communicator (the same
  // one on every call for the same op). Seconds.
  double seconds(std::uint32_t op, const Route& r, double bytes, const NcclP2pComm& comm) {
    if (r.self) return 0.0;
    OpSlots& slots = ops_[op];
    for (std::uint32_t i = 0; i < slots.used; ++i) {
      const Slot& k = slots.slot[i];
      if (same(k.bytes, bytes) && same(k.bottleneck_Bps, r.bottleneck_Bps) && same(k.latency_s, r.latency_s) &&
          k.link_class == r.link_class)
        return k.seconds;
    }
    const double s = routes_.p2p_transfer_seconds(r, bytes, comm);
    Slot& k = slots.slot[slots.next];
    k = {bytes, r.bottleneck_Bps, r.latency_s, r.link_class, s};
    slots.next = (slots.next + 1) % kSlots;
    if (slots.used < kSlots) ++slots.used;
    return s;
  }

  static constexpr std::uint32_t kSlots = 4;

 private:
  struct Slot {
    double bytes = 0;
    double bottleneck_Bps = 0;
    double latency_s = 0;
    LinkClass link_class = LinkClass::IntraNode;
    double seconds = 0;
  };
  struct OpSlots {
    std::array<Slot, kSlots> slot{};
    std::uint32_t used = 0;   // slots filled
    std::uint32_t next = 0;   // slot the next new key replaces (oldest first)
  };

  // Keys compare bit for bit: a hit means the very same inputs (0.0 and -0.0 are different keys).
  static bool same(double x, double y) { return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y); }

  const RouteModel& routes_;
  std::vector<OpSlots> ops_;
};

}  // namespace hcpsim
