#pragma once
// ScheduleDescriptor: everything the rest of the program asks about one CP schedule (model.cp_comm_type),
// in one row. Each schedule's file in this folder defines its row; schedule_table.cpp lists the rows.
// Validation, the memory model, the planner, the graph builder, the graph explanation, `hcpsim
// verify` and the GUI read these fields instead of switching on CpCommType.
//
// Adding a schedule: a CpCommType value and its name (engine/scenario/scenario.h, scenario.cpp), the
// schedule's file here with its builders and its descriptor, and one row in schedule_table.cpp.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::schedule {

class ScheduleContext;

// Where a schedule splits the attention heads with an all-to-all.
enum class A2aLevel {
  None,        // no all-to-all of Q, K, V
  WholeCp,     // over the whole CP group (Ulysses): heads must divide by cp
  FirstLevel,  // over level 0 of hierarchical_context_parallel_sizes [a2a, p2p]
};

// Transient CP attention buffers of one layer per GPU (docs/schedules.md "Memory the schedules
// keep"), bytes.
struct CpBufferBytes {
  double forward_bytes = 0;
  double backward_bytes = 0;
};

// What a planner explanation says about a candidate of this schedule (engine/planning/plan_explain.cpp).
struct ExplainFacts {
  int cp = 1;
  std::string heads;              // "2 KV heads per TP rank"
  bool a2a_possible = false;      // heads divide by cp
  bool placement_known = false;   // the fields below hold
  bool a2a_intra = false;         // the a2a group stays inside one node
  int ring_hops = 0, ring_intra_hops = 0;
  int split_a2a = 1, split_ring = 1;   // hierarchical candidates: [a2a, p2p]
  double full_kv_bytes = 0;       // K and V of the whole sequence on one TP rank
};

// What one rank of the ring builder's KV ring (engine/schedule/p2p_ring.cpp) does in one layer pass,
// whatever the ring's placement: compute kernels (the cost model adds its kernel overhead to each),
// and send/recv calls issued one after the other on its NCCL p2p stream (each on the stream's
// previous one). Forward: the K/V concatenation, R attention steps, R LSE merges and the output
// correction, R - 1 exchanges; backward: the K/V copy, per step the attention backward, the dQ
// accumulation and the dK/dV addition, R exchanges.
struct RingPassWork {
  int compute_kernels = 0;
  int exchanges = 0;
};
// Defined next to the ring builder (p2p_ring.cpp); `ring_ranks` >= 2.
RingPassWork ring_pass_work(int ring_ranks, Pass pass);
// Bytes each rank sends (and receives) in exchange `step` (0 .. exchanges - 1) of that pass, for a
// K/V block of `block_bytes`: the block in the forward; in the backward the block, then block and
// travelling dK/dV, then the last dK/dV alone.
double ring_exchange_bytes(int ring_ranks, Pass pass, int step, double block_bytes);

struct ScheduleDescriptor {
  CpCommType kind = CpCommType::P2P;
  const char* name = "";          // as written in model.cp_comm_type
  const char* summary = "";       // one line: what the schedule exchanges
  A2aLevel a2a = A2aLevel::None;
  bool ring = false;              // passes K/V around a ring (AttentionShape::kv_source names its owner)
  bool own_shards = false;        // one contiguous chunk per CP rank: no mixing with other types, causal only
  bool planner_flat = false;      // the planner tries it on the flat CP group
  // Graph builders of one layer and pass on every CP group (cp > 1).
  void (*build_forward)(ScheduleContext&) = nullptr;
  void (*build_backward)(ScheduleContext&) = nullptr;
  // Tasks one rank gets in one layer and pass, attention only; 0 when not known in closed form.
  std::size_t (*tasks_per_rank)(const RankLayout& layout, Pass pass) = nullptr;
  // Steps per rank and pass (each a few tasks): the graph-size estimate of validation.
  double (*steps_per_rank)(const Scenario& s) = nullptr;
  // Transient buffers per GPU (cp > 1).
  CpBufferBytes (*buffers)(const Scenario& s) = nullptr;
  // Why a planner candidate of this schedule does what it does.
  std::string (*explain)(const ExplainFacts& f) = nullptr;
  // For bounds computed without the graph (engine/planning/planner_bound.cpp): the ranks of the
  // ring builder's KV ring that every rank of a layer of this schedule runs in `s` (0: no such ring,
  // or fewer than 2 ranks, or sizes the builder refuses); the bytes of the K/V block every hop of
  // that ring carries (what the forward's exchanges send, the backward's first and last); and the
  // layout's groups the rings are (RankLayout::groups).
  int (*kv_ring_ranks)(const Scenario& s) = nullptr;
  double (*kv_ring_block_bytes)(const Scenario& s) = nullptr;
  GroupKind kv_ring_group = GroupKind::CP;

  bool hierarchical() const { return a2a == A2aLevel::FirstLevel; }
};

// Every schedule, in the order of CpCommType.
std::span<const ScheduleDescriptor> schedules();
const ScheduleDescriptor& schedule_of(CpCommType kind);
// The schedule named `name` as in model.cp_comm_type ("p2p", "a2a+p2p", ...): nullptr when none
// is; schedule_named throws std::invalid_argument listing the names instead.
const ScheduleDescriptor* find_schedule(std::string_view name);
const ScheduleDescriptor& schedule_named(std::string_view name);
// The schedule of a layer (0-based): its cp_comm_type entry.
const ScheduleDescriptor& schedule_of_layer(const Scenario& s, int layer);
// True when an entry of model.cp_comm_type names a schedule with `pred`.
bool any_layer(const Scenario& s, bool (*pred)(const ScheduleDescriptor&));
// The flat ring (p2p): what a hierarchical schedule falls back to without its level sizes.
const ScheduleDescriptor& flat_ring_schedule();
// Ranks one all-to-all of this schedule spans in `s` (1: no all-to-all).
int a2a_size(const ScheduleDescriptor& d, const Scenario& s);
// Ranks of one ring of this schedule in `s` (cp for the flat ring, level 1 for a2a+p2p).
int ring_size(const ScheduleDescriptor& d, const Scenario& s);

// Per-GPU sizes the buffer terms of every schedule share (bytes).
struct CpBufferTerms {
  double t_q = 0;            // Q (or O) of one CP rank
  double m_kv = 0;           // K and V of one CP rank
  double lse = 0;            // fp32 softmax log-sum-exp of one CP rank
  double a2a_staging = 0;    // one staging copy per exchanged tensor (Q, K+V, O)
};
CpBufferTerms cp_buffer_terms(const Scenario& s);

}  // namespace hcpsim::schedule
