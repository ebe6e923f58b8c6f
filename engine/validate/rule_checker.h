#pragma once
// What the rule files of this folder share: Checker (diagnostics at a field's position in the
// file), the schedule properties a rule asks about, and the split hints of the a2a rules.
#include <string>
#include <utility>
#include <vector>

#include "engine/core/diagnostics.h"
#include "engine/scenario/scenario.h"
#include "engine/schedule/schedule_descriptor.h"

namespace hcpsim::validate_rules {

class Checker {
 public:
  explicit Checker(const Scenario& s) : s_(s) {}

  void error(const std::string& path, std::string msg, std::vector<std::string> hints = {}) {
    add(Severity::Error, path, std::move(msg), std::move(hints));
  }
  void warning(const std::string& path, std::string msg, std::vector<std::string> hints = {}) {
    add(Severity::Warning, path, std::move(msg), std::move(hints));
  }
  Diagnostics take() { return std::move(d_); }

 private:
  void add(Severity sev, const std::string& path, std::string msg, std::vector<std::string> hints) {
    const SourceLocation loc = s_.location_of(path);
    if (loc.override_index > 0) msg = "<override " + std::to_string(loc.override_index) + "> " + msg;
    d_.add({sev, path, loc.line, loc.column, std::move(msg), std::move(hints)});
  }
  const Scenario& s_;
  Diagnostics d_;
};

// Schedule properties the rules ask about (engine/schedule/schedule_descriptor.h).
bool own_shards(const schedule::ScheduleDescriptor& d);
bool hierarchical(const schedule::ScheduleDescriptor& d);
bool whole_cp_a2a(const schedule::ScheduleDescriptor& d);
bool flat_ring(const schedule::ScheduleDescriptor& d);

// Whether an entry of model.cp_comm_type has a schedule with `pred`.
bool uses(const Scenario& s, bool (*pred)(const schedule::ScheduleDescriptor&));

// Largest a2a size that divides cp and both per-TP-rank head counts (1 when none > 1 does).
int largest_a2a(int cp, int h_t, int g_t);
// Largest such size whose a2a group (a * tp GPUs, contiguous) still fits in one node.
int largest_a2a_in_node(int cp, int h_t, int g_t, int tp, int gpn);
// "cp_comm_type=a2a+p2p with hierarchical_context_parallel_sizes=[a, cp/a]"
std::string split_hint(int a, int cp);
// "[0,1,2]"
std::string group_str(const std::vector<int>& g);

}  // namespace hcpsim::validate_rules
