#pragma once
// The rows of `hcpsim sweep` in the forms a team runs them, as `hcpsim plan` gives its layouts: each
// point's scenario overrides, Megatron-LM arguments, Megatron-Bridge overrides and the warnings of
// what those cannot express, in the JSON rows and as files with --emit DIR.
#include <iosfwd>
#include <string>
#include <vector>

#include "engine/planning/sweep_result.h"
#include "engine/planning/sweep_spec.h"

namespace hcpsim::cli {

// The points of a sweep and the base file they override.
struct SweepRows {
  std::string base_path;
  std::vector<planning::SweepPoint> points;   // as expanded (every point, also those of other shards)
  std::vector<std::string> columns;
};

// write_json's table ({"columns", "points"}) with, on each row whose scenario loads, its
// "scenario_overrides" (the point's overrides of the base file), "megatron_arguments",
// "bridge_overrides" and "warnings".
void write_sweep_json(std::ostream& os, const std::vector<planning::PointResult>& rs, const SweepRows& rows);

// DIR/point-K.yaml, .overrides, .megatron.sh, .bridge (and .warnings) for every row whose scenario
// loads, K the point's place in the grid (from 1). False (with the reason on stderr) when a file
// cannot be written.
bool emit_sweep(const std::vector<planning::PointResult>& rs, const SweepRows& rows, const std::string& dir);

}  // namespace hcpsim::cli
