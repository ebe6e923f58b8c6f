#pragma once
// The GPU device of the multi-process runner: one CUDA stream per task stream, the rank's compute
// tasks on the real kernels with synthetic data (task_timer.h), communication through a RankComm
// (NCCL) on the task's stream with one synthetic send and receive buffer sized for the largest
// call. CUDA events around every task give its start and end on the pass's clock; cross-stream
// dependencies are stream waits on those events.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "kernels/rank_device.h"
#include "kernels/task_timer.h"

namespace hcpsim::kernels {

class CudaDevice : public RankDevice {
 public:
  // Selects no device: the caller has called cudaSetDevice. Throws std::runtime_error naming the
  // rank on CUDA errors.
  CudaDevice(const TaskGraph& g, int rank, std::uint64_t seed);
  ~CudaDevice() override;
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  const char* name() const override { return "cuda"; }
  void begin_pass() override;
  void wait_for(TaskId id, TaskId dep) override;
  void compute(TaskId id) override;
  void communicate(TaskId id, RankComm& comm, const std::string& what) override;
  bool finished(TaskId id) override;
  std::pair<double, double> times_s(TaskId id) override;

 private:
  cudaStream_t stream_of(TaskId id) const;
  void record_start(TaskId id);
  void record_end(TaskId id);

  const TaskGraph& g_;
  int rank_;
  std::string who_;
  std::vector<cudaStream_t> streams_;
  std::unique_ptr<TaskTimer> timer_;
  void* sendbuf_ = nullptr;
  void* recvbuf_ = nullptr;
  std::size_t comm_bytes_ = 256;
  std::map<TaskId, std::pair<cudaEvent_t, cudaEvent_t>> events_;
  cudaEvent_t t0_ = nullptr;
};

}  // namespace hcpsim::kernels
