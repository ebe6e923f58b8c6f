#pragma once
// The MPI job a `hcpsim sweep` or `hcpsim plan` process belongs to when `mpirun` (or `srun` with
// PMI/PMIx) started it: the ranks share the points (engine/planning/point_distribution.h), rank 0
// writes. MPI stays in cli/ so that the engine never depends on it; builds without MPI compile
// mpi_job_absent.cpp instead of mpi_job.cpp.
#include <functional>
#include <memory>
#include <string>

#include "engine/planning/point_distribution.h"

namespace hcpsim::cli {

class MpiJob : public planning::PointDistribution {
 public:
  // Ranks of this job on this machine (to divide its CPUs among them).
  virtual int ranks_on_this_node() const = 0;
  // Ends every rank of the job with `code` (MPI_Abort): a failed rank must not leave the others waiting.
  [[noreturn]] virtual void abort_job(int code) = 0;
};

// True when the environment says that a process manager started this process as one of several
// ranks (OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK is set).
bool launched_as_mpi_rank();

// Joins the MPI job (MPI_Init) when launched_as_mpi_rank(), else returns nullptr and the command
// runs alone as always. The job ends (MPI_Finalize) when the object is destroyed. Throws
// std::runtime_error when this build has no MPI but several ranks were started (each would run the
// whole command and write the same files).
std::unique_ptr<MpiJob> join_mpi_job(const std::string& command);

// Joins the job (join_mpi_job) and runs `body` with it (nullptr when not under mpirun); returns its
// exit status. In a job of several ranks, an exception on any rank is printed as "hcpsim COMMAND:
// rank R of N: error: ..." and ends every rank (abort_job), so that no rank waits for it forever.
// Without a job, exceptions pass through unchanged.
int run_in_mpi_job(const std::string& command, const std::function<int(MpiJob*)>& body);

}  // namespace hcpsim::cli
