#pragma once
// RouteModel: which links a transfer between two ranks crosses and what one uncontended transfer
// costs (alpha-beta on the bottleneck link). Faults: degraded NICs scale their bandwidth, a failed
// NIC hands its traffic to the next working NIC of its node. Formulas: docs/metrics.md "Routes".
#include <cstdint>
#include <string>
#include <vector>

#include "engine/cost/cost_model.h"
#include "engine/cost/nccl_p2p.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {

struct Route {
  bool self = false;            // src == dst: free
  LinkClass link_class = LinkClass::IntraNode;
  double bottleneck_Bps = 0;    // nominal bandwidth of the slowest link on the route, bytes/s
  double latency_s = 0;         // one-way latency of the whole route, seconds
  int src_node = 0, dst_node = 0;
  int src_nic = -1, dst_nic = -1;   // NIC index inside the node (inter-node only), after failover
  // Inter-node only. `nccl_rails` term: NICs the transfer is spread over on each side (1 without
  // the term); bottleneck_Bps is then the smaller side's summed NIC bandwidth. one_rail_Bps is what
  // the single path src_nic -> dst_nic gives (the SimGrid platform's route), so bottleneck_Bps /
  // one_rail_Bps is the rails' speed-up.
  int rails = 1;
  double one_rail_Bps = 0;
};

class RouteModel {
 public:
  // Throws std::invalid_argument naming the fault when a fault points outside the cluster.
  RouteModel(const Scenario& s, const CostModel& cost);

  // The route from `src` to `dst` (global ranks) of a point-to-point transfer. Throws
  // std::runtime_error when a node's NICs have all failed and the transfer needs one (the scenario
  // is infeasible). With the `nccl_rails` term an inter-node route spreads over the NICs local to
  // both GPUs, at most kNcclP2pChannelsPerNetPeer of them (docs/metrics.md section 9.7).
  Route route(int src, int dst) const;
  // Routes of the hops members[i] -> members[(i + 1) % n] of an NCCL ring collective that runs
  // `channels` channels (element i is hop i). Without the `nccl_rails` term: route() of each hop.
  // With it, an inter-node hop runs over ring_rails(...) NICs: the distinct NICs local to the
  // members on its sending node and on its receiving node (after failover), their summed bandwidth
  // shared by the hops that leave that node (receiving side: that enter it).
  std::vector<Route> ring_hops(const std::vector<std::int32_t>& members, int channels) const;
  // Distinct working NICs (after failover, in order) NCCL's point-to-point channels of `rank` use:
  // the NICs local to its GPU with the `nccl_rails` term, else nic_of(rank) alone. Empty when its
  // node has no working NIC.
  std::vector<int> p2p_nics(int rank) const;
  // Seconds for one transfer of `bytes` alone on the route: latency + bytes / (bw * link_efficiency).
  double transfer_seconds(int src, int dst, double bytes) const;
  // Same for a route already looked up, with `message_bytes` and the NCCL op `op` choosing the
  // efficiency (CostModel::link_efficiency(op, ...)).
  double transfer_seconds(const Route& r, double bytes, double message_bytes, TaskKind op = TaskKind::SendRecv) const;
  // Seconds for one send/recv transfer of `bytes` alone on the route inside NCCL communicator
  // `comm`: latency + bytes / (bw * CostModel::p2p_efficiency), the `nccl_p2p_channels` cap included.
  double p2p_transfer_seconds(const Route& r, double bytes, const NcclP2pComm& comm) const;
  // The NCCL communicator of send/recv op `op` as the channel rules see it: its members, the nodes
  // they span, and the GPUs' NVLinks (docs/metrics.md section 9.10).
  NcclP2pComm p2p_comm(const CommOp& op) const;
  // NIC index a rank's inter-node traffic uses (GPU i -> NIC i mod nics_per_node, failover applied);
  // -1 when its node has no working NIC.
  int nic_of(int rank) const;
  // Nominal bandwidth of NIC `nic` of `node` as one flow sees it: nic_bw * fault factor, capped by
  // the per-rail fabric share nic_bw / oversubscription. Bytes/s.
  double nic_Bps(int node, int nic) const;
  const CostModel& cost() const { return cost_; }

 private:
  // Index of NIC `nic` of `node` in factor_ / target_ (64-bit: nodes x nics can exceed an int).
  std::size_t slot(int node, int nic) const {
    return static_cast<std::size_t>(node) * static_cast<std::size_t>(nics_) + static_cast<std::size_t>(nic);
  }

  // One rail, no failover question left: rank -> (its NIC after failover, nic_Bps of it), what the
  // one-NIC inter-node route of route() reads (-1 / 0 when its node has no working NIC).
  struct RankNic {
    int nic = -1;
    double nic_Bps = 0;
  };

  const Scenario& s_;
  const CostModel& cost_;
  int nics_ = 1;
  int gpn_ = 1;                     // max(1, gpus_per_node)
  std::vector<RankNic> rank_nic_;   // per rank of the cluster (empty for clusters past kRankTableMax)
  static constexpr std::size_t kRankTableMax = std::size_t{1} << 22;
  std::vector<double> factor_;   // per node*nics + nic: degraded-NIC factor
  std::vector<int> target_;      // per node*nics + nic: NIC that carries its traffic, -1 none
};

}  // namespace hcpsim
