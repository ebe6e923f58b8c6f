#pragma once
// MPI implementation of RankComm: real messages between CPU processes (`mpirun -np N hcpsim run
// FILE --device cpu`). Send/recv use nonblocking point-to-point messages on MPI_COMM_WORLD (tags
// keep the calls apart); collectives use MPI-3 nonblocking collectives on one communicator per
// group kind (MPI_Comm_split, members in group order). Errors return codes (MPI_ERRORS_RETURN)
// that become exceptions naming the rank and the task.
#include <memory>

#include "kernels/rank_comm.h"

namespace hcpsim::kernels {

// Initialises MPI when needed (MPI_Init) and returns this process's world rank and size.
struct MpiWorld {
  int rank = 0;
  int size = 1;
};
MpiWorld init_mpi();

class MpiComm : public RankComm {
 public:
  MpiComm();   // needs init_mpi()
  ~MpiComm() override;
  int rank() const override;
  int size() const override;
  void open_groups(const RankLayout& layout, const std::vector<GroupKind>& kinds) override;
  CommTicket start(const CommCall& call, void* stream, const std::string& what) override;
  bool finished(CommTicket ticket) override;
  void check_errors(const std::string&) override {}   // MPI reports errors on the calls themselves
  void barrier() override;
  std::vector<std::vector<char>> gather_to_root(const std::vector<char>& mine) override;
  void abort() override {}

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hcpsim::kernels

namespace hcpsim::kernels {

// True when this process was started by an MPI launcher (OpenMPI, PMI, Slurm).
bool launched_by_mpi();
// MPI_Abort(MPI_COMM_WORLD, code) when MPI is initialised; no-op otherwise.
void abort_all_ranks(int code);
// MPI_Finalize when MPI is initialised and not yet finalised.
void finalize_mpi();

}  // namespace hcpsim::kernels
