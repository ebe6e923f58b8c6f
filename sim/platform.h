#pragma once
// SimGrid side of the platform (internal to sim/): configures the exact alpha-beta network model and
// builds zones, hosts and links from a PlatformSpec. Call only inside the child process.
#include <memory>
#include <string>
#include <vector>

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include "sim/platform_spec.h"

namespace hcpsim::sim {

// Bandwidths in the SimGrid platform are multiplied by this and flow sizes too, so that integer
// payload bytes keep 1/kByteScale resolution (SimGrid payloads are uint64 bytes).
constexpr double kByteScale = 1024.0;
// Host speed in flop/s: an exec of `s` seconds has an amount of s * kHostSpeed.
constexpr double kHostSpeed = 1e12;

// Creates the engine and sets CM02, crosstraffic 0, TCP-gamma 0 (before any zone exists) and quiet
// logging. Only one per process.
std::unique_ptr<simgrid::s4u::Engine> make_engine();

// Builds the platform: a star zone "fabric" holding one full zone "node<k>" per node; per GPU a host
// n<k>g<i> with a split-duplex NVLink port nvl-n<k>g<i>; per node NICs nic-n<k>-<j> (split duplex)
// and a router n<k>-gw; per node an uplink-n<k> into the fabric. Returns the hosts by global rank.
std::vector<simgrid::s4u::Host*> build_platform(const PlatformSpec& spec);

// Route text between two ranks: each link with its bandwidth (bytes/s, per direction) and latency.
std::string describe_route(const std::vector<simgrid::s4u::Host*>& hosts, int a, int b);

}  // namespace hcpsim::sim
