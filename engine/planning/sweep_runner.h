#pragma once
// Runs sweep points in worker processes: one fork per point, at most `jobs` at once, each result
// sent back through a pipe as one JSON line, appended to the output file as soon as it arrives
// (flushed), so an interrupted sweep keeps its finished points and --resume skips them.
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "engine/planning/sweep_result.h"
#include "engine/planning/sweep_spec.h"

namespace hcpsim::planning {

// Evaluates one point; runs in a child process. May throw: the point is then reported as an error.
using PointEvaluator = std::function<PointResult(const SweepPoint&)>;

struct SweepRunOptions {
  int jobs = 0;                      // worker processes at once; 0 = number of online CPUs
  std::string out_path;              // results file (.csv or .json/.jsonl); "" = none
  bool resume = false;               // keep the points already in out_path and skip them
  std::ostream* progress = nullptr;  // progress bar target (stderr); nullptr = silent
  bool progress_tty = false;         // redraw one line with '\r' instead of printing lines
  double point_timeout_s = 0;        // a worker running longer is killed (point = error); 0 = never
};

struct SweepOutcome {
  std::vector<PointResult> results;  // resumed points first, then in completion order
  std::size_t resumed = 0;           // points taken from the existing output file
  std::size_t evaluated = 0;         // points run now
  double wall_s = 0;
};

// Runs every point not already done. Throws std::runtime_error when the output file cannot be
// written or (with resume) does not belong to this sweep; std::invalid_argument when jobs < 0.
SweepOutcome run_sweep(const std::vector<SweepPoint>& points, const std::vector<std::string>& columns,
                       const PointEvaluator& evaluate, const SweepRunOptions& options);

}  // namespace hcpsim::planning
