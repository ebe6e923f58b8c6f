#pragma once
// What `calibrate --from-trace` says beside its tables (engine/measured/trace_fit.h): the notes on
// the launch overheads, on how the model reads the link tables, and on link entries whose samples
// disagree.
#include <string>
#include <vector>

#include "engine/measured/launch_fit.h"
#include "engine/measured/trace_fit.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {

// True when the scenario (file or override) sets cluster.efficiency.nccl_launch: the fit keeps it.
bool nccl_launch_stated(const Scenario& s);

// A link entry whose samples disagree by more than 20 % holds calls the model prices differently at
// one message size (e.g. send/recv in communicators of different sizes, whose NCCL per-peer caps
// differ): the entry is their median, and a note says so.
void note_spread(const std::string& what, double bytes, const std::vector<double>& v, TraceFitResult& r);

// What the model does with the launch overheads and the collective tables, said rather than dropped.
void add_model_notes(const Scenario& s, const LaunchOverheads& l, TraceFitResult& r);

}  // namespace hcpsim
