#pragma once
// Checks that a scenario whose fields are each in range (field_ranges.h) can also be simulated as a
// whole: no two faults on the same rank or NIC, every node that must talk to another keeps a working
// NIC, the sequence splits into the halves the schedules use, and the task graph stays buildable
// (the graph that is simulated: one fold unit when the job folds, every rank otherwise).
// Everything a builder or backend would refuse is refused here first, with the field's position.
#include <cstdint>
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

Diagnostics check_feasibility(const Scenario& s);

}  // namespace hcpsim
