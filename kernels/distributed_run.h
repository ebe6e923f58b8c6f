#pragma once
// Multi-process GPU run (`mpirun -np N hcpsim run FILE`, executed by hcpsim-mpi): one process per
// GPU and per rank of the scenario, running the per-rank schedule shared with the CPU runner
// (rank_schedule.h) on a CudaDevice (the real kernels on synthetic data, CUDA events on a common
// clock: an MPI barrier, then one reference event per rank) with an NcclComm (communicators per
// group kind). While work is in flight the host polls events and NCCL's asynchronous errors with
// a deadline; on error or timeout every communicator is aborted and the message names the rank
// and the first unfinished task.
#include <cstdint>
#include <iosfwd>

#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"
#include "engine/scenario/scenario.h"
#include "engine/trace/trace.h"
#include "kernels/mpi_comm.h"
#include "kernels/run_scenario.h"

namespace hcpsim::kernels {

struct DistributedOptions {
  int warmup = 1;            // untimed passes over the whole graph
  double timeout_s = 120;    // per pass
  std::uint64_t seed = 1;
  int gpus_per_node = 8;
};

// Makes this process's GPU the current device: the local rank (OMPI_COMM_WORLD_LOCAL_RANK,
// SLURM_LOCALID; else the world rank, OMPI_COMM_WORLD_RANK / PMIX_RANK before MPI starts) modulo
// `devices`. Returns the device index; throws std::runtime_error on CUDA errors.
int select_local_gpu(int devices, int world_rank = -1);

// Runs the graph; returns the whole trace on MPI rank 0 and an empty trace elsewhere. Throws
// std::runtime_error naming this rank (and the task) on any failure; the caller should then end
// the job (abort_all_ranks) so that the other ranks stop too.
Trace run_distributed(const TaskGraph& g, const RankLayout& layout, const DistributedOptions& options,
                      std::ostream& log);

// `g`, the scenario's graph (no payloads) on `layout` that app::measure builds, run by
// run_distributed: the whole trace on MPI rank 0, an empty one elsewhere. Throws with the whole
// message when there is no GPU, when a multi-rank scenario was not started by an MPI launcher, or
// when the call plan would hang.
Trace run_graph_on_gpus(const Scenario& s, const TaskGraph& g, const RankLayout& layout, const GpuRunOptions& options,
                        std::ostream& log);

}  // namespace hcpsim::kernels
