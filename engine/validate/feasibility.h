#pragma once
// Checks that a scenario whose fields are each in range (field_ranges.h) can also be simulated as a
// whole: no two faults on the same rank or NIC, every node that must talk to another keeps a working
// NIC, the sequence splits into the halves the schedules use, and the task graph stays buildable
// (the graph that is simulated: one fold unit when the job folds, every rank otherwise).
// Everything a builder or backend would refuse is refused here first, with the field's position.
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "engine/core/diagnostics.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {

// The most tasks hcpsim builds for one simulation (about 100 bytes each in the graph).
inline constexpr double kMaxGraphTasks = 64e6;

// An upper estimate of the task graph's size: ranks x simulated layers x passes x tasks per rank.
double estimated_graph_tasks(const Scenario& s);

// Throws std::invalid_argument when the graph of `s`, built whole (every rank), would exceed
// kMaxGraphTasks: check_feasibility() accepts a job whose folded graph fits (engine/fold/fold_plan.h),
// so a command that builds every rank (a trace of every rank, `hcpsim graph`) checks again.
// `why_whole` says why every rank is built and what to do instead; it ends the message.
void require_buildable_graph(const Scenario& s, const std::string& why_whole);

// The fold plans already made, by layout: whether a job folds, and into how many GPUs, depends on its
// groups, cluster and faults (engine/fold/fold_plan.h), not on the batch, the recomputation or the
// pipeline split, so the planner, which checks thousands of candidates per layout, plans each layout
// once. Thread-safe.
class FoldMemo {
 public:
  struct Entry {
    bool folded = false;
    int simulated_ranks = 0;
    std::string note;
  };
  std::optional<Entry> find(const std::string& key) const;
  void store(const std::string& key, Entry e);

 private:
  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

// `memo`: where the fold plans of earlier calls are kept (nullptr: plan each time).
Diagnostics check_feasibility(const Scenario& s, FoldMemo* memo = nullptr);

}  // namespace hcpsim
