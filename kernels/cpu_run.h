#pragma once
// `mpirun -np N hcpsim run FILE --device cpu [--check]`: the scenario's task graph, with the
// schedule's numerical payloads, run by N CPU processes (one per rank) through the same per-rank
// schedule as the GPU runner (rank_schedule.h), with real messages between the processes
// (mpi_comm.h) and the reference executor's kernels (cpu_device.h). Rank 0 gathers the measured
// trace and, with --check, every rank's O, dQ, dK, dV, and compares them with dense attention.
#include <cstdint>
#include <iosfwd>
#include <optional>

#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"
#include "engine/reference/tile_kernels.h"
#include "engine/reference/verify.h"
#include "engine/scenario/scenario.h"
#include "engine/trace/trace.h"

namespace hcpsim::kernels {

struct CpuRunOptions {
  int warmup = 0;              // untimed passes before the timed one
  double timeout_s = 120;      // per pass
  std::uint64_t seed = 1;      // input data seed
  bool check = false;          // compare with dense attention
  double tolerance = 1e-4;     // max relative error accepted by the check
  // The attention tiles on other kernels (`run --check` on GPUs: the CUDA kernels on this rank's
  // GPU, bf16_tile_kernels.h); nullptr: the reference kernels. Not owned.
  reference::TileKernels* tiles = nullptr;
  bool bf16_tiles = false;     // `tiles` rounds to bf16: the GPU's size limits apply (run_check.h)
};

struct CpuRunResult {
  Trace trace;                                   // on rank 0 only
  bool reporting_rank = true;                    // false on ranks other than 0
  std::optional<reference::VerifyResult> check;  // on rank 0 with options.check
};

// Runs `g`, the scenario's graph with payloads on `layout` (app::measure with payloads builds it),
// as this MPI process's rank. The caller checks the size limits first (require_real_data_size,
// run_check.h). Throws std::runtime_error with the whole message (naming the rank, and the task
// when one failed); the caller ends the job (abort_all_ranks) so that the other ranks stop too.
CpuRunResult run_graph_on_cpus(const Scenario& s, const TaskGraph& g, const RankLayout& layout,
                               const CpuRunOptions& options, std::ostream& log);

}  // namespace hcpsim::kernels
