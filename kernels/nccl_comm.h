#pragma once
// NCCL implementation of RankComm for the GPU runner: MPI bootstraps NCCL (ncclGetUniqueId on
// rank 0, MPI_Bcast), a world communicator carries send/recv, one communicator per group kind
// (ncclCommSplit, members in group order) carries the collectives. Communicators are nonblocking:
// every call that returns ncclInProgress is waited for with a deadline, so a peer that never
// arrives cannot hang the rank; asynchronous errors are polled by check_errors(). Host-side
// barrier and gather use MPI.
#include <memory>

#include "kernels/rank_comm.h"

namespace hcpsim::kernels {

class NcclComm : public RankComm {
 public:
  // Needs MPI initialised (init_mpi) and the rank's CUDA device selected. `timeout_s` bounds each
  // NCCL call (setup included).
  explicit NcclComm(double timeout_s);
  ~NcclComm() override;
  int rank() const override;
  int size() const override;
  void open_groups(const RankLayout& layout, const std::vector<GroupKind>& kinds) override;
  CommTicket start(const CommCall& call, void* stream, const std::string& what) override;
  bool finished(CommTicket) override { return true; }   // the stream orders completion
  void check_errors(const std::string& what) override;
  void barrier() override;
  std::vector<std::vector<char>> gather_to_root(const std::vector<char>& mine) override;
  void abort() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hcpsim::kernels
