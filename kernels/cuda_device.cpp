#include "kernels/cuda_device.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/cuda_check.h"

namespace hcpsim::kernels {

CudaDevice::CudaDevice(const TaskGraph& g, int rank, std::uint64_t seed)
    : g_(g), rank_(rank), who_("rank " + std::to_string(rank)) {
  streams_.resize(kStreamCount);
  for (auto& s : streams_) check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), (who_ + ": cudaStreamCreate").c_str());
  timer_ = std::make_unique<TaskTimer>(g, seed + static_cast<std::uint64_t>(rank));
  for (const Task& t : g.tasks()) {
    if (t.rank != rank || !is_communication(t.kind) || t.comm == kNone) continue;
    const CommOp& op = g.comms()[t.comm];
    double b = t.bytes;
    for (const Transfer& x : op.transfers) b = std::max(b, x.bytes);
    b = std::max(b, op.bytes_per_rank * static_cast<double>(std::max<std::size_t>(op.ranks.size(), 1)));
    comm_bytes_ = std::max(comm_bytes_, static_cast<std::size_t>(std::ceil(b)) + 256);
  }
  check_cuda(cudaMalloc(&sendbuf_, comm_bytes_), (who_ + ": cudaMalloc (communication buffers)").c_str());
  check_cuda(cudaMalloc(&recvbuf_, comm_bytes_), (who_ + ": cudaMalloc (communication buffers)").c_str());
  check_cuda(cudaMemset(sendbuf_, 0, comm_bytes_), "cudaMemset");
  for (TaskId id = 0; id < g.size(); ++id) {
    if (g.task(id).rank != rank) continue;
    cudaEvent_t a, b;
    check_cuda(cudaEventCreate(&a), "cudaEventCreate");
    check_cuda(cudaEventCreate(&b), "cudaEventCreate");
    events_[id] = {a, b};
  }
  check_cuda(cudaEventCreate(&t0_), "cudaEventCreate");
}

CudaDevice::~CudaDevice() {
  for (auto& [id, p] : events_) {
    cudaEventDestroy(p.first);
    cudaEventDestroy(p.second);
  }
  if (t0_) cudaEventDestroy(t0_);
  cudaFree(sendbuf_);
  cudaFree(recvbuf_);
  for (auto s : streams_) cudaStreamDestroy(s);
}

cudaStream_t CudaDevice::stream_of(TaskId id) const { return streams_[static_cast<std::size_t>(g_.task(id).stream)]; }

void CudaDevice::begin_pass() {
  check_cuda(cudaEventRecord(t0_, streams_[0]), "cudaEventRecord");
  for (cudaStream_t s : streams_) check_cuda(cudaStreamWaitEvent(s, t0_, 0), "cudaStreamWaitEvent");
}

void CudaDevice::wait_for(TaskId id, TaskId dep) {
  check_cuda(cudaStreamWaitEvent(stream_of(id), events_.at(dep).second, 0), "cudaStreamWaitEvent");
}

void CudaDevice::record_start(TaskId id) {
  check_cuda(cudaEventRecord(events_.at(id).first, stream_of(id)), (who_ + ": cudaEventRecord").c_str());
}

void CudaDevice::record_end(TaskId id) {
  check_cuda(cudaEventRecord(events_.at(id).second, stream_of(id)), (who_ + ": cudaEventRecord").c_str());
}

void CudaDevice::compute(TaskId id) {
  record_start(id);
  timer_->enqueue(g_.task(id), stream_of(id));
  record_end(id);
}

void CudaDevice::communicate(TaskId id, RankComm& comm, const std::string& what) {
  const Task& t = g_.task(id);
  const CommOp& op = g_.comms()[t.comm];
  const int n = static_cast<int>(op.ranks.size());
  const auto pos = std::find(op.ranks.begin(), op.ranks.end(), rank_);
  CommCall call;
  call.kind = op.kind;
  call.group = op.group;
  call.member_index = static_cast<int>(pos - op.ranks.begin());
  switch (op.kind) {
    case TaskKind::SendRecv:
      for (const Transfer& x : op.transfers) {
        const auto b = static_cast<std::size_t>(x.bytes);
        if (x.src == rank_ && x.dst != rank_) call.sends.push_back({x.dst, 0, sendbuf_, b, nullptr});
        if (x.dst == rank_ && x.src != rank_) call.recvs.push_back({x.src, 0, recvbuf_, b, nullptr});
      }
      break;
    case TaskKind::AllToAll:
      call.count_per_member = static_cast<std::size_t>(op.bytes_per_rank / n);
      break;
    case TaskKind::AllGather:
      call.count_per_member = static_cast<std::size_t>(op.bytes_per_rank);
      break;
    case TaskKind::ReduceScatter:
    case TaskKind::AllReduce:
      call.count_per_member = static_cast<std::size_t>(op.bytes_per_rank / 2);
      call.element = CommElement::BFloat16;
      break;
    default: throw std::runtime_error(what + ": unsupported communication kind " + to_string(op.kind));
  }
  call.send = sendbuf_;
  call.recv = recvbuf_;
  record_start(id);
  comm.start(call, stream_of(id), what);
  record_end(id);
}

bool CudaDevice::finished(TaskId id) {
  const cudaError_t q = cudaEventQuery(events_.at(id).second);
  if (q == cudaSuccess) return true;
  if (q != cudaErrorNotReady) check_cuda(q, (who_ + ": task " + std::to_string(id)).c_str());
  return false;
}

std::pair<double, double> CudaDevice::times_s(TaskId id) {
  float a = 0, b = 0;
  check_cuda(cudaEventElapsedTime(&a, t0_, events_.at(id).first), "cudaEventElapsedTime");
  check_cuda(cudaEventElapsedTime(&b, t0_, events_.at(id).second), "cudaEventElapsedTime");
  return {a * 1e-3, b * 1e-3};
}

}  // namespace hcpsim::kernels
