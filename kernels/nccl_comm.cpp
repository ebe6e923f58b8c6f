#include "kernels/nccl_comm.h"

#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <chrono>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>

#include "kernels/mpi_comm.h"

namespace hcpsim::kernels {

namespace {

using Clock = std::chrono::steady_clock;

ncclConfig_t nonblocking_config() {
  ncclConfig_t c = NCCL_CONFIG_INITIALIZER;
  c.blocking = 0;
  return c;
}

ncclDataType_t nccl_type(CommElement e) {
  switch (e) {
    case CommElement::BFloat16: return ncclBfloat16;
    case CommElement::Float64: return ncclFloat64;
    default: return ncclChar;
  }
}

std::size_t element_bytes(CommElement e) {
  switch (e) {
    case CommElement::BFloat16: return 2;
    case CommElement::Float64: return 8;
    default: return 1;
  }
}

}  // namespace

struct NcclComm::Impl {
  int rank = 0, size = 1;
  double timeout_s = 120;
  ncclComm_t world = nullptr;
  std::map<int, ncclComm_t> by_kind;
  MpiComm host;   // barrier and gather

  Clock::time_point deadline() const {
    return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  }
  // Waits for a nonblocking NCCL call to be accepted (not for the GPU work) with a deadline.
  void wait(ncclComm_t comm, ncclResult_t r, const std::string& what) const {
    if (r != ncclSuccess && r != ncclInProgress) throw std::runtime_error(what + ": NCCL: " + ncclGetErrorString(r));
    const auto until = deadline();
    ncclResult_t state = r;
    while (state == ncclInProgress) {
      if (Clock::now() > until) throw std::runtime_error(what + ": timed out");
      std::this_thread::yield();
      ncclCommGetAsyncError(comm, &state);
    }
    if (state != ncclSuccess) throw std::runtime_error(what + ": NCCL: " + ncclGetErrorString(state));
  }
  ncclComm_t comm_of(GroupKind k, const std::string& what) const {
    auto it = by_kind.find(static_cast<int>(k));
    if (it == by_kind.end()) throw std::runtime_error(what + ": no communicator for group kind " + to_string(k));
    return it->second;
  }
};

NcclComm::NcclComm(double timeout_s) : impl_(std::make_unique<Impl>()) {
  impl_->rank = impl_->host.rank();
  impl_->size = impl_->host.size();
  impl_->timeout_s = timeout_s;
  const std::string who = "rank " + std::to_string(impl_->rank);
  ncclUniqueId id;
  if (impl_->rank == 0) {
    const ncclResult_t r = ncclGetUniqueId(&id);
    if (r != ncclSuccess) throw std::runtime_error(who + ": ncclGetUniqueId: " + ncclGetErrorString(r));
  }
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclConfig_t cfg = nonblocking_config();
  const ncclResult_t r = ncclCommInitRankConfig(&impl_->world, impl_->size, id, impl_->rank, &cfg);
  impl_->wait(impl_->world, r, who + ": ncclCommInitRankConfig (world)");
}

NcclComm::~NcclComm() {
  for (auto& [k, c] : impl_->by_kind)
    if (c) ncclCommDestroy(c);
  if (impl_->world) ncclCommDestroy(impl_->world);
}

int NcclComm::rank() const { return impl_->rank; }
int NcclComm::size() const { return impl_->size; }

void NcclComm::open_groups(const RankLayout& layout, const std::vector<GroupKind>& kinds) {
  for (GroupKind k : kinds) {
    const CommSplit split = comm_split_of(layout, k, impl_->rank);
    ncclComm_t c = nullptr;
    ncclConfig_t cfg = nonblocking_config();
    const ncclResult_t r = ncclCommSplit(impl_->world, split.color, split.key, &c, &cfg);
    impl_->by_kind[static_cast<int>(k)] = c;
    impl_->wait(c ? c : impl_->world, r,
                "rank " + std::to_string(impl_->rank) + ": ncclCommSplit (" + to_string(k) + ")");
  }
}

CommTicket NcclComm::start(const CommCall& call, void* stream_ptr, const std::string& what) {
  auto s = static_cast<cudaStream_t>(stream_ptr);
  ncclComm_t c = call.kind == TaskKind::SendRecv ? impl_->world : impl_->comm_of(call.group, what);
  impl_->wait(c, ncclGroupStart(), what + ": ncclGroupStart");
  ncclResult_t r = ncclSuccess;
  const ncclDataType_t type = nccl_type(call.element);
  const std::size_t eb = element_bytes(call.element);
  switch (call.kind) {
    case TaskKind::SendRecv:
      for (const CommMessage& m : call.sends)
        if (r == ncclSuccess) r = ncclSend(m.data, m.bytes, ncclChar, m.peer, c, s);
      for (const CommMessage& m : call.recvs) {
        if (m.sized_by_sender) throw std::runtime_error(what + ": NCCL needs the size of every receive");
        if (r == ncclSuccess) r = ncclRecv(m.data, m.bytes, ncclChar, m.peer, c, s);
      }
      break;
    case TaskKind::AllToAll: {
      int n = 0;
      ncclCommCount(c, &n);
      const std::size_t piece = call.count_per_member * eb;
      for (int j = 0; j < n && r == ncclSuccess; ++j) {
        r = ncclSend(static_cast<const char*>(call.send) + j * piece, call.count_per_member, type, j, c, s);
        if (r == ncclSuccess) r = ncclRecv(static_cast<char*>(call.recv) + j * piece, call.count_per_member, type, j, c, s);
      }
      break;
    }
    case TaskKind::AllGather: r = ncclAllGather(call.send, call.recv, call.count_per_member, type, c, s); break;
    case TaskKind::ReduceScatter:
      r = ncclReduceScatter(call.send, call.recv, call.count_per_member, type, ncclSum, c, s);
      break;
    case TaskKind::AllReduce: r = ncclAllReduce(call.send, call.recv, call.count_per_member, type, ncclSum, c, s); break;
    default: throw std::runtime_error(what + ": unsupported communication kind " + to_string(call.kind));
  }
  impl_->wait(c, r, what);
  impl_->wait(c, ncclGroupEnd(), what + ": ncclGroupEnd");
  return 0;
}

void NcclComm::check_errors(const std::string& what) {
  auto check_one = [&](ncclComm_t c) {
    if (!c) return;
    ncclResult_t e = ncclSuccess;
    ncclCommGetAsyncError(c, &e);
    if (e != ncclSuccess && e != ncclInProgress)
      throw std::runtime_error(what + " did not finish: NCCL asynchronous error: " + ncclGetErrorString(e));
  };
  check_one(impl_->world);
  for (auto& [k, c] : impl_->by_kind) check_one(c);
}

void NcclComm::barrier() { impl_->host.barrier(); }

std::vector<std::vector<char>> NcclComm::gather_to_root(const std::vector<char>& mine) {
  return impl_->host.gather_to_root(mine);
}

void NcclComm::abort() {
  for (auto& [k, c] : impl_->by_kind)
    if (c) ncclCommAbort(c);
  if (impl_->world) ncclCommAbort(impl_->world);
  impl_->by_kind.clear();
  impl_->world = nullptr;
}

}  // namespace hcpsim::kernels
