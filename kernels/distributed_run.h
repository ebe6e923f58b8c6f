#pragma once
// Multi-process run (`mpirun -np N hcpsim run FILE`): one process per GPU and per rank of the
// scenario. MPI bootstraps NCCL (ncclGetUniqueId on rank 0, MPI_Bcast); a world communicator plus
// one communicator per group kind the graph's collectives use (ncclCommSplit from the world).
// The rank's tasks are issued in the graph's global topological order (the same on every rank, so
// NCCL calls match) on CUDA streams per task stream, cross-stream dependencies as events; compute
// tasks run the real kernels on synthetic data (task_timer.h); transfers and collectives run on
// NCCL with the task's bytes. CUDA events around every task give durations on a common clock
// (an MPI barrier, then one reference event per rank). While work is in flight the host polls
// events and ncclCommGetAsyncError with a deadline; on error or timeout every communicator is
// aborted and the message names the rank and the first unfinished task.
#include <cstdint>
#include <iosfwd>

#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"
#include "engine/trace/trace.h"

namespace hcpsim::kernels {

struct DistributedOptions {
  int warmup = 1;            // untimed passes over the whole graph
  double timeout_s = 120;    // per pass
  std::uint64_t seed = 1;
  int gpus_per_node = 8;
};

// True when this process was started by an MPI launcher (OpenMPI, PMI, Slurm).
bool launched_by_mpi();

// Runs the graph; returns the whole trace on MPI rank 0 and an empty trace elsewhere. Throws
// std::runtime_error naming this rank (and the task) on any failure; the caller should then end
// the job (MPI_Abort) so that the other ranks stop too.
Trace run_distributed(const TaskGraph& g, const RankLayout& layout, const DistributedOptions& options,
                      std::ostream& log);

// MPI_Abort(MPI_COMM_WORLD, code) when MPI is initialised; no-op otherwise.
void abort_all_ranks(int code);
// MPI_Finalize when MPI is initialised.
void finalize_mpi();

}  // namespace hcpsim::kernels
