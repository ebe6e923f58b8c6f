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
