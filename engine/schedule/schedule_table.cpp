// The table of CP schedules: one row per schedule, each defined in its own <name>_schedule.cpp.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "engine/schedule/schedule_descriptor.h"

namespace hcpsim::schedule {

extern const ScheduleDescriptor kP2pSchedule;
extern const ScheduleDescriptor kAllGatherSchedule;
extern const ScheduleDescriptor kA2aSchedule;
extern const ScheduleDescriptor kA2aP2pSchedule;
extern const ScheduleDescriptor kDfaSchedule;

namespace {

// In the order of CpCommType.
const std::array<const ScheduleDescriptor*, 5> kRows = {
    &kP2pSchedule, &kAllGatherSchedule, &kA2aSchedule, &kA2aP2pSchedule, &kDfaSchedule,
};

constexpr double kLseBytes = 4.0;   // FlashAttention keeps the softmax log-sum-exp in fp32

}  // namespace

std::span<const ScheduleDescriptor> schedules() {
  static const std::array<ScheduleDescriptor, kRows.size()> table = [] {
    std::array<ScheduleDescriptor, kRows.size()> t;
    for (std::size_t i = 0; i < kRows.size(); ++i) {
      t[i] = *kRows[i];
      if (static_cast<std::size_t>(t[i].kind) != i)
        throw std::logic_error(std::string("schedule table: row ") + std::to_string(i) + " is '" + t[i].name +
                               "', out of CpCommType order");
    }
    return t;
  }();
  return table;
}

const ScheduleDescriptor& schedule_of(CpCommType kind) {
  const auto i = static_cast<std::size_t>(kind);
  const auto all = schedules();
  if (i >= all.size()) throw std::logic_error("schedule_of: CpCommType " + std::to_string(i) + " has no row");
  return all[i];
}

const ScheduleDescriptor* find_schedule(std::string_view name) {
  for (const ScheduleDescriptor& d : schedules())
    if (name == d.name) return &d;
  return nullptr;
}

const ScheduleDescriptor& schedule_named(std::string_view name) {
  if (const ScheduleDescriptor* d = find_schedule(name)) return *d;
  std::string names;
  for (const ScheduleDescriptor& d : schedules()) names += std::string(names.empty() ? "" : ", ") + d.name;
  throw std::invalid_argument("cp_comm_type '" + std::string(name) + "' is not a schedule (one of " + names + ")");
}

const ScheduleDescriptor& schedule_of_layer(const Scenario& s, int layer) {
  return schedule_of(s.comm_type_for_layer(layer));
}

bool any_layer(const Scenario& s, bool (*pred)(const ScheduleDescriptor&)) {
  return std::any_of(s.model.cp_comm_type.begin(), s.model.cp_comm_type.end(),
                     [pred](CpCommType t) { return pred(schedule_of(t)); });
}

const ScheduleDescriptor& flat_ring_schedule() {
  for (const ScheduleDescriptor& d : schedules())
    if (d.ring && !d.hierarchical() && d.a2a == A2aLevel::None) return d;
  throw std::logic_error("schedule table: no flat ring");
}

int a2a_size(const ScheduleDescriptor& d, const Scenario& s) {
  const auto& h = s.model.hierarchical_context_parallel_sizes;
  switch (d.a2a) {
    case A2aLevel::None: return 1;
    case A2aLevel::WholeCp: return s.cp();
    case A2aLevel::FirstLevel: return h.size() == 2 ? h[0] : 1;
  }
  return 1;
}

int ring_size(const ScheduleDescriptor& d, const Scenario& s) {
  if (!d.ring) return 1;
  const auto& h = s.model.hierarchical_context_parallel_sizes;
  return d.hierarchical() && h.size() == 2 && h[1] > 0 ? h[1] : s.cp();
}

CpBufferTerms cp_buffer_terms(const Scenario& s) {
  CpBufferTerms b;
  const int cp = s.cp();
  const double e = bytes_per_element(s.model.params_dtype);
  const double sb = static_cast<double>(s.model.seq_length) / cp * s.train.micro_batch_size;
  const double d = s.head_dim();
  b.t_q = sb * s.heads_per_tp_rank() * d * e;
  b.m_kv = sb * s.kv_heads_per_tp_rank() * 2.0 * d * e;   // T_k + T_v
  b.lse = sb * s.heads_per_tp_rank() * kLseBytes;
  b.a2a_staging = b.t_q + b.m_kv + b.t_q;                  // Q, K+V and O (O has Q's size)
  return b;
}

}  // namespace hcpsim::schedule
