#include "sim/platform_spec.h"

#include <stdexcept>

namespace hcpsim::sim {

namespace {

std::string fault_field(std::size_t i, const char* field) {
  return "cluster.faults[" + std::to_string(i) + "]." + field;
}

}  // namespace

PlatformSpec make_platform_spec(const ClusterConfig& c) {
  if (c.nodes < 1 || c.gpus_per_node < 1)
    throw std::invalid_argument("cluster.nodes and cluster.gpus_per_node must be >= 1");
  if (c.nics_per_node < 1) throw std::invalid_argument("cluster.inter_node.nics_per_node must be >= 1");
  if (!(c.intra_node_bandwidth_Bps > 0) || !(c.nic_bandwidth_Bps > 0))
    throw std::invalid_argument("cluster bandwidths must be > 0 (intra_node.bandwidth, inter_node.nic_bandwidth)");
  if (!(c.oversubscription >= 1.0))
    throw std::invalid_argument("cluster.inter_node.oversubscription must be >= 1 (got " +
                                std::to_string(c.oversubscription) + ")");
  PlatformSpec p;
  p.nodes = c.nodes;
  p.gpus_per_node = c.gpus_per_node;
  p.nics_per_node = c.nics_per_node;
  p.topology = c.topology;
  p.nvlink_Bps = c.intra_node_bandwidth_Bps;
  p.nvlink_latency_s = c.intra_node_latency_s / 2;
  p.nic_latency_s = c.inter_node_latency_s / 2;
  p.uplink_Bps = c.nics_per_node * c.nic_bandwidth_Bps / c.oversubscription;
  p.uplink_latency_s = 0;
  const auto nic_count = static_cast<std::size_t>(c.nodes) * static_cast<std::size_t>(c.nics_per_node);
  p.nic_Bps.assign(nic_count, c.nic_bandwidth_Bps);
  p.nic_failed.assign(nic_count, false);

  for (std::size_t i = 0; i < c.faults.size(); ++i) {
    const Fault& f = c.faults[i];
    if (f.kind == Fault::Kind::Straggler) continue;   // a compute slowdown: the cost model's job
    if (f.node < 0 || f.node >= c.nodes)
      throw std::invalid_argument(fault_field(i, "node") + ": node " + std::to_string(f.node) +
                                  " does not exist (valid: 0.." + std::to_string(c.nodes - 1) + ")");
    if (f.nic < 0 || f.nic >= c.nics_per_node)
      throw std::invalid_argument(fault_field(i, "nic") + ": NIC " + std::to_string(f.nic) +
                                  " does not exist (valid: 0.." + std::to_string(c.nics_per_node - 1) + ")");
    const auto idx = static_cast<std::size_t>(f.node) * c.nics_per_node + f.nic;
    if (f.kind == Fault::Kind::DegradedNic) {
      if (!(f.bandwidth_factor > 0 && f.bandwidth_factor <= 1))
        throw std::invalid_argument(fault_field(i, "bandwidth_factor") + " must be in (0, 1] (got " +
                                    std::to_string(f.bandwidth_factor) + ")");
      p.nic_Bps[idx] *= f.bandwidth_factor;
    } else {
      p.nic_failed[idx] = true;
    }
  }

  p.nic_of_rank.resize(static_cast<std::size_t>(p.world_size()));
  for (int node = 0; node < c.nodes; ++node) {
    for (int gpu = 0; gpu < c.gpus_per_node; ++gpu) {
      const int preferred = gpu % c.nics_per_node;
      int chosen = -1;
      for (int k = 0; k < c.nics_per_node && chosen < 0; ++k) {
        const int nic = (preferred + k) % c.nics_per_node;
        if (!p.nic_failed[static_cast<std::size_t>(node) * c.nics_per_node + nic]) chosen = nic;
      }
      if (chosen < 0) {
        if (c.nodes > 1)
          throw std::invalid_argument("infeasible: every NIC of node " + std::to_string(node) +
                                      " failed (cluster.faults), so it cannot reach the other nodes");
        chosen = preferred;   // single node: NICs are never used
      }
      p.nic_of_rank[static_cast<std::size_t>(node * c.gpus_per_node + gpu)] = chosen;
    }
  }
  return p;
}

std::string host_name(int node, int gpu) { return "n" + std::to_string(node) + "g" + std::to_string(gpu); }
std::string nvlink_name(int node, int gpu) { return "nvl-" + host_name(node, gpu); }
std::string nic_name(int node, int nic) { return "nic-n" + std::to_string(node) + "-" + std::to_string(nic); }
std::string uplink_name(int node) { return "uplink-n" + std::to_string(node); }

}  // namespace hcpsim::sim
