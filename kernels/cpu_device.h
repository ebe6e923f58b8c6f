#pragma once
// The CPU device of the multi-process runner (`hcpsim run FILE --device cpu`, one MPI process per
// rank): compute tasks run the reference executor's kernels (engine/reference/payload_ops.h) on
// this rank's real data; communication tasks send the real tensors through a RankComm. Each
// stream is a queue, as on a GPU: its head starts once its dependencies on this rank have ended
// (and, for a collective, once every earlier collective on the same communicator has started);
// compute runs on the calling thread whenever the queues are polled (finished()); communication
// completes in the background (nonblocking MPI) and its received tensors are stored when it ends.
#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "engine/layout/rank_layout.h"
#include "engine/reference/executor.h"
#include "engine/reference/payload_ops.h"
#include "engine/reference/tile_kernels.h"
#include "engine/scenario/scenario.h"
#include "kernels/rank_device.h"

namespace hcpsim::kernels {

class CpuDevice : public RankDevice, private reference::BufferAccess<double> {
 public:
  // The graph must carry payloads (GraphOptions::with_payloads). `tiles`: computes the attention
  // tiles instead of the reference kernels (`run --check` on GPUs: bf16_tile_kernels.h); not owned.
  CpuDevice(const TaskGraph& g, const Scenario& s, const RankLayout& layout, int rank, std::uint64_t seed,
            reference::TileKernels* tiles = nullptr);
  ~CpuDevice() override;

  // "cpu", or "cpu+cuda bf16" when the attention tiles run elsewhere.
  const char* name() const override { return name_.c_str(); }
  void begin_pass() override;
  void wait_for(TaskId, TaskId) override {}   // a queue head already waits for every dependency
  void compute(TaskId id) override;
  void communicate(TaskId id, RankComm& comm, const std::string& what) override;
  bool finished(TaskId id) override;
  std::pair<double, double> times_s(TaskId id) override;

  // This rank's O, dQ, dK, dV of each layer after the last pass (empty tensors when not produced).
  std::map<int, reference::RankLayerResult> results() const;

 private:
  const reference::Tensor<double>& get(int rank, std::uint64_t key, TaskId t) override;
  void put(int rank, std::uint64_t key, reference::Tensor<double>&& v, TaskId t) override;

  struct Pending {
    CommTicket ticket = 0;
    RankComm* comm = nullptr;
    std::vector<std::vector<char>> buffers;        // send staging and receive buffers
    std::function<void(Pending&)> store;           // turns received bytes into tensors
  };

  double now_s() const;
  // Runs or starts queue heads until nothing more can move.
  void progress();
  bool deps_done(TaskId id) const;
  void start_comm(TaskId id);
  bool poll_comm(TaskId id);

  const TaskGraph& g_;
  const Scenario& s_;
  const RankLayout& layout_;
  int rank_;
  std::uint64_t seed_;
  reference::TileKernels* tiles_;
  std::string name_;
  std::unordered_map<std::uint64_t, reference::Tensor<double>> bufs_;
  std::vector<char> done_;                          // by task id
  std::vector<double> start_s_, end_s_;             // by task id
  std::vector<std::deque<TaskId>> queues_;          // by stream
  std::map<int, std::deque<TaskId>> collective_order_;   // by group kind: collectives not started yet
  std::unordered_map<TaskId, std::pair<RankComm*, std::string>> comm_of_;   // enqueued communication
  std::unordered_map<TaskId, std::unique_ptr<Pending>> pending_;            // started communication
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace hcpsim::kernels
