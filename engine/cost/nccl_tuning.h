#pragma once
// NCCL's own cost model of a ring collective (the tuning model of src/graph/tuning.cc in
// NVIDIA/nccl), which the cost-model terms `nccl_ring_latency` and `nccl_protocols` apply
// (docs/metrics.md sections 9.8 and 9.9). Plain arithmetic on the call's shape: the analytic
// collectives and the simgrid lowering (engine/analytic/collective_time.h) put it on routes.
#include <string>

#include "engine/graph/task_graph.h"

namespace hcpsim {

// NCCL's three wire protocols: LL (8-byte lines with an inline flag, lowest latency, a quarter to a
// half of the bandwidth), LL128 (128-byte lines, 120 of them payload) and Simple (bulk copies with
// a synchronisation per slice: full bandwidth, highest latency).
enum class NcclProtocol { LL, LL128, Simple };
const char* to_string(NcclProtocol p);

// GPU generation whose rows of NCCL's tuning tables apply. GPUs hcpsim does not recognise use the
// Hopper rows (the generation the scenario's link plateaus stand for).
enum class NcclArch { Ampere, Hopper, Blackwell };
NcclArch nccl_arch(const std::string& gpu_name);

// One ring collective as NCCL's model sees it.
struct NcclRingShape {
  TaskKind op = TaskKind::AllReduce;   // AllGather, ReduceScatter or AllReduce
  int ranks = 2;                       // members of the call
  int nodes = 1;                       // distinct nodes among them
  int channels = 1;                    // rings (channels) NCCL runs for the call
};

// Ring steps one chunk makes: 2(n-1) for all_reduce, n-1 for all_gather / reduce_scatter.
int nccl_ring_steps(const NcclRingShape& s);
// Of those, the steps whose hop crosses nodes: 0 on one node, else 2(nodes-1) for all_reduce and
// nodes-1 for the others (NCCL 2.25.1's count).
int nccl_ring_inter_steps(const NcclRingShape& s);

// Seconds of latency NCCL's model charges a ring collective in protocol `p` once per call:
//   base(p) + (steps - inter_steps) * nvlink_step(p) + inter_steps * net_step(p)
// times 1.4 for a multi-node Simple all_reduce (NCCL's "plateau effect of ring" for GPUs of
// compute capability 8.0 and newer, every generation hcpsim knows). The per-step latencies are those of NCCL's hardware table (NVLink and network rows).
double nccl_ring_latency_s(NcclProtocol p, const NcclRingShape& s);

// Bus bandwidth (bytes/s) protocol `p` reaches when Simple reaches `simple_bus_Bps`:
//   LL:     min(ll_cap(arch, nodes), ll_fraction(arch) * simple)
//   LL128:  min(0.92 * simple, channels * ll128_channel_cap(arch))
//   Simple: simple
double nccl_protocol_bus_Bps(NcclProtocol p, NcclArch arch, const NcclRingShape& s, double simple_bus_Bps);

// What one ring collective costs under NCCL's model: the protocol, its latency (seconds, once per
// call) and its bandwidth relative to Simple's (bus(p) / simple_bus_Bps, in (0, 1]).
struct NcclRingChoice {
  NcclProtocol protocol = NcclProtocol::Simple;
  double latency_s = 0;
  double bandwidth_factor = 1;
};

// The protocol NCCL picks for one call moving `chunk_bytes` per ring step: the one with the
// smallest latency + steps * chunk / bus(p). With `choose_protocol` false (the `nccl_protocols`
// term off) always Simple. `simple_bus_Bps` must be > 0.
NcclRingChoice nccl_ring_choice(NcclArch arch, const NcclRingShape& s, double chunk_bytes, double simple_bus_Bps,
                                bool choose_protocol);

}  // namespace hcpsim
