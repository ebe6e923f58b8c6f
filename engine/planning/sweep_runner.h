#pragma once
// Runs sweep points in worker processes: one fork per point, at most `jobs` at once, each result
// sent back through a pipe as one JSON line, appended to the output file as soon as it arrives
// (flushed), so an interrupted sweep keeps its finished points and --resume skips them. When every
// point has finished, the file is rewritten in point order (first axis slowest), so that a sweep gives
// the same file however it was run: any -j, under MPI (PointDistribution), or as merged shards.
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "engine/planning/point_distribution.h"
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
  std::string preamble;              // first line of the output file (a shard header), "" = none
  // Several cooperating processes (MPI ranks): rank 0 reads and writes out_path, chooses the points
  // still to do and collects the results; every rank evaluates every size-th of them. nullptr or a
  // one-rank distribution: this process does everything.
  PointDistribution* distribution = nullptr;
};

struct SweepOutcome {
  // In point order (resumed rows that are not points of this sweep last). Under a distribution,
  // rank 0 has every result, the other ranks only their own.
  std::vector<PointResult> results;
  std::size_t resumed = 0;           // points taken from the existing output file
  std::size_t evaluated = 0;         // points run now (rank 0 of a distribution: by all ranks)
  double wall_s = 0;
};

// Runs every point not already done. Throws std::runtime_error when the output file cannot be
// written or (with resume) does not belong to this sweep; std::invalid_argument when jobs < 0.
SweepOutcome run_sweep(const std::vector<SweepPoint>& points, const std::vector<std::string>& columns,
                       const PointEvaluator& evaluate, const SweepRunOptions& options);

}  // namespace hcpsim::planning
