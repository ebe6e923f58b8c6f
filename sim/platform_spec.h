#pragma once
// PlatformSpec: the numbers of the simulated platform (link bandwidths, latencies, which NIC each
// GPU uses), derived from `cluster:` including NIC faults. Plain data, no SimGrid: the platform
// builder (platform.cpp) turns it into SimGrid zones, hosts and links.
#include <string>
#include <vector>

#include "engine/scenario/scenario.h"

namespace hcpsim::sim {

struct PlatformSpec {
  int nodes = 1;
  int gpus_per_node = 8;
  int nics_per_node = 8;
  Topology topology = Topology::FatTree;
  double nvlink_Bps = 0;            // per GPU port, per direction
  double nvlink_latency_s = 0;      // per NVLink port (a GPU-to-GPU route crosses two)
  std::vector<double> nic_Bps;      // [node * nics_per_node + nic], per direction, faults applied
  std::vector<bool> nic_failed;     // same index
  double nic_latency_s = 0;         // per NIC (an inter-node route crosses two)
  double uplink_Bps = 0;            // per node into the fabric, per direction
  double uplink_latency_s = 0;
  std::vector<int> nic_of_rank;     // NIC index (within its node) each global rank sends through

  int world_size() const { return nodes * gpus_per_node; }
  int node_of(int rank) const { return rank / gpus_per_node; }
  int gpu_of(int rank) const { return rank % gpus_per_node; }
};

// Builds the spec. Latencies are split so that a route sums to the scenario's latency: intra-node
// route = 2 NVLink ports = intra_node_latency_s; inter-node route = 2 NICs = inter_node_latency_s.
// NIC choice is rail-optimized (GPU i -> NIC i mod nics_per_node); a failed NIC's GPUs move to the
// next working NIC of the node (i+1, i+2, ... mod nics_per_node).
// Throws std::invalid_argument naming `cluster.faults[i]...` for a fault outside the cluster, and
// "infeasible: ..." when a multi-node cluster has a node whose NICs all failed.
PlatformSpec make_platform_spec(const ClusterConfig& c);

// SimGrid names, shared by the builder and explain_route.
std::string host_name(int node, int gpu);      // "n0g3"
std::string nvlink_name(int node, int gpu);    // "nvl-n0g3"
std::string nic_name(int node, int nic);       // "nic-n0-3"
std::string uplink_name(int node);             // "uplink-n0"

}  // namespace hcpsim::sim
