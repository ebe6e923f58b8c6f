#pragma once
// Public entry points of the SimGrid backend (library hcpsim_sim). Only this header is meant for
// other folders; it includes no SimGrid header, so the CLI can use it behind HCPSIM_HAVE_SIMGRID.
#include <string>

#include "engine/backend/backend.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::sim {

// Registers the backend "simgrid" (SimGrid 3.32 network model with link sharing; every run() forks
// one child process that owns the SimGrid engine).
void register_simgrid_backend(BackendRegistry& r);

// Human-readable route between two global ranks on the scenario's platform: one line per link
// (name, bandwidth in bytes/s, latency in s) plus the total latency. Runs in a forked child.
// Throws std::invalid_argument for a rank outside [0, world_size) or a platform that cannot be built
// (for example a node whose NICs all failed).
std::string explain_route(const Scenario& s, int rank_a, int rank_b);

}  // namespace hcpsim::sim
