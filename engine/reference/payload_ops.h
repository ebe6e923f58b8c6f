#pragma once
// The data operations behind TaskPayload (engine/graph/payload.h), on per-rank buffers.
#include <cstdint>
#include <string>

#include "engine/graph/task_graph.h"
#include "engine/reference/tensor.h"
#include "engine/reference/tile_kernels.h"

namespace hcpsim::reference {

// Per-rank buffer store used by the operations; implemented by the executor.
template <typename T>
class BufferAccess {
 public:
  virtual ~BufferAccess() = default;
  // Throws naming task `t` when the buffer does not exist yet.
  virtual const Tensor<T>& get(int rank, std::uint64_t key, TaskId t) = 0;
  // Throws when the buffer exists already (buffers are written once).
  virtual void put(int rank, std::uint64_t key, Tensor<T>&& v, TaskId t) = 0;
};

// Throws std::runtime_error "reference: rank R task NAME: message" (a payload that cannot run).
[[noreturn]] void payload_error(const TaskGraph& g, TaskId t, const std::string& message);

// "KV.L0.v3" style description of a buffer key.
std::string describe_key(std::uint64_t key);

// Runs the payload of a compute/copy task. `tiles`: computes the attention tiles instead of the
// reference kernels (double only; std::invalid_argument with float).
template <typename T>
void run_compute(const TaskGraph& g, TaskId t, BufferAccess<T>& buf, TileKernels* tiles = nullptr);
// Runs a whole communication op, all member tasks at once (payload_comm.cpp).
template <typename T>
void run_comm(const TaskGraph& g, const CommOp& op, BufferAccess<T>& buf);

}  // namespace hcpsim::reference
