#include "engine/validate/rule_checker.h"

namespace hcpsim::validate_rules {

using schedule::ScheduleDescriptor;

bool own_shards(const ScheduleDescriptor& d) { return d.own_shards; }
bool hierarchical(const ScheduleDescriptor& d) { return d.hierarchical(); }
bool whole_cp_a2a(const ScheduleDescriptor& d) { return d.a2a == schedule::A2aLevel::WholeCp; }
bool flat_ring(const ScheduleDescriptor& d) { return d.ring && !d.hierarchical(); }

bool uses(const Scenario& s, bool (*pred)(const ScheduleDescriptor&)) { return schedule::any_layer(s, pred); }

int largest_a2a(int cp, int h_t, int g_t) {
  for (int a = cp; a > 1; --a)
    if (cp % a == 0 && h_t % a == 0 && g_t % a == 0) return a;
  return 1;
}

int largest_a2a_in_node(int cp, int h_t, int g_t, int tp, int gpn) {
  for (int a = cp; a > 1; --a)
    if (cp % a == 0 && h_t % a == 0 && g_t % a == 0 && a * tp <= gpn) return a;
  return 1;
}

std::string split_hint(int a, int cp) {
  return "cp_comm_type=a2a+p2p with hierarchical_context_parallel_sizes=[" + std::to_string(a) + ", " +
         std::to_string(cp / a) + "]";
}

std::string group_str(const std::vector<int>& g) {
  std::string s = "[";
  for (std::size_t i = 0; i < g.size(); ++i) s += (i ? "," : "") + std::to_string(g[i]);
  return s + "]";
}

}  // namespace hcpsim::validate_rules
