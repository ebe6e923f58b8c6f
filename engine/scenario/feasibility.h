#pragma once
// Checks that a scenario whose fields are each in range (field_ranges.h) can also be simulated as a
// whole: no two faults on the same rank or NIC, every node that must talk to another keeps a working
// NIC, the sequence splits into the halves the schedules use, and the task graph stays buildable.
// Everything a builder or backend would refuse is refused here first, with the field's position.
#include <cstdint>

#include "engine/core/diagnostics.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {

// The most tasks hcpsim builds for one simulation (about 100 bytes each in the graph).
inline constexpr double kMaxGraphTasks = 64e6;

// An upper estimate of the task graph's size: ranks x simulated layers x passes x tasks per rank.
double estimated_graph_tasks(const Scenario& s);

Diagnostics check_feasibility(const Scenario& s);

}  // namespace hcpsim
