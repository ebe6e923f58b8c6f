#pragma once
// Helpers for the sim tests: small clusters with round numbers and hand-built task graphs.
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "engine/graph/task_graph.h"
#include "engine/scenario/scenario.h"
#include "sim/op_lowering.h"
#include "sim/platform_spec.h"
#include "sim/simulate.h"

namespace hcpsim::sim::testing {

constexpr double kNvl_Bps = 100e9;
constexpr double kIntraLat_s = 2e-6;
constexpr double kNic_Bps = 10e9;
constexpr double kInterLat_s = 4e-6;

inline ClusterConfig cluster(int nodes, int gpus, int nics) {
  ClusterConfig c;
  c.nodes = nodes;
  c.gpus_per_node = gpus;
  c.nics_per_node = nics;
  c.intra_node_bandwidth_Bps = kNvl_Bps;
  c.intra_node_latency_s = kIntraLat_s;
  c.nic_bandwidth_Bps = kNic_Bps;
  c.inter_node_latency_s = kInterLat_s;
  return c;
}

// Test convention: a compute task's `flops` is its duration in picoseconds (1e12 per second).
// Faults of `cluster.faults`, one constructor per kind.
inline Fault straggler(int rank, double slowdown) {
  Fault f;
  f.kind = Fault::Kind::Straggler;
  f.rank = rank;
  f.slowdown = slowdown;
  return f;
}

inline Fault degraded_nic(int node, int nic, double bandwidth_factor) {
  Fault f;
  f.kind = Fault::Kind::DegradedNic;
  f.node = node;
  f.nic = nic;
  f.bandwidth_factor = bandwidth_factor;
  return f;
}

inline Fault failed_nic(int node, int nic) {
  Fault f;
  f.kind = Fault::Kind::FailedNic;
  f.node = node;
  f.nic = nic;
  return f;
}

inline PlanCosts unit_costs(int gpus_per_node, double eff_intra = 1.0, double eff_inter = 1.0) {
  PlanCosts c;
  c.compute_s = [](const Task& t) { return t.flops / 1e12; };
  c.link_efficiency = [eff_intra, eff_inter](TaskKind, double, bool inter) { return inter ? eff_inter : eff_intra; };
  c.gpus_per_node = gpus_per_node;
  return c;
}

inline TaskId compute(TaskGraph& g, int rank, double seconds, const char* label = "attn") {
  Task t;
  t.rank = rank;
  t.kind = TaskKind::AttentionForward;
  t.flops = seconds * 1e12;
  return g.add_task(t, label);
}

// A SendRecv op: one member task per distinct rank of the transfers. Returns the member task ids
// in the order of `ranks`.
inline std::vector<TaskId> sendrecv(TaskGraph& g, const std::vector<int>& ranks, const std::vector<Transfer>& transfers) {
  CommOp op;
  op.kind = TaskKind::SendRecv;
  op.ranks = ranks;
  op.transfers = transfers;
  const auto idx = static_cast<std::uint32_t>(g.comms().size());
  for (int r : ranks) {
    Task t;
    t.rank = r;
    t.kind = TaskKind::SendRecv;
    t.stream = Stream::NcclP2P;
    t.comm = idx;
    op.tasks.push_back(g.add_task(t, "kv_send_recv"));
  }
  g.add_comm(op);
  return g.comms()[idx].tasks;
}

inline std::vector<TaskId> collective(TaskGraph& g, TaskKind kind, const std::vector<int>& ranks, double bytes_per_rank) {
  CommOp op;
  op.kind = kind;
  op.ranks = ranks;
  op.bytes_per_rank = bytes_per_rank;
  const auto idx = static_cast<std::uint32_t>(g.comms().size());
  for (int r : ranks) {
    Task t;
    t.rank = r;
    t.kind = kind;
    t.stream = Stream::NcclA2A;
    t.comm = idx;
    op.tasks.push_back(g.add_task(t, to_string(kind)));
  }
  g.add_comm(op);
  return g.comms()[idx].tasks;
}

struct Result {
  SimRunResult run;
  std::vector<double> start_s, end_s;   // per task
};

inline Result simulate(const TaskGraph& g, const ClusterConfig& c, const PlanCosts& costs,
                       ComputeMode mode = ComputeMode::Timer) {
  Result r;
  r.start_s.assign(g.size(), -1);
  r.end_s.assign(g.size(), -1);
  r.run = simulate_in_child(g, costs, make_platform_spec(c),
                            [&](TaskId t, double s, double e) {
                              r.start_s[t] = s;
                              r.end_s[t] = e;
                            },
                            {}, mode);
  return r;
}

inline Result simulate(const TaskGraph& g, const ClusterConfig& c) { return simulate(g, c, unit_costs(c.gpus_per_node)); }

}  // namespace hcpsim::sim::testing
