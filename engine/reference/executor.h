#pragma once
// Reference executor: runs a TaskGraph built with GraphOptions::with_payloads on CPU with real
// numbers. Each rank owns its buffers (engine/graph/payload.h); communication tasks move real data
// between ranks in-process (a CommOp runs once all its member tasks are ready). Inputs come from
// the data loader (data_loader.h). Buffers are written once, so a task that reads a buffer its
// dependencies did not produce fails with an error naming the task (a missing edge).
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"
#include "engine/reference/tensor.h"
#include "engine/reference/tile_kernels.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::reference {

struct ExecOptions {
  std::uint64_t seed = 1;         // data seed (per global token and head)
  bool use_float = false;         // float instead of double arithmetic
  int workers = 1;                // 1: one thread, ready tasks picked in a seeded random order;
                                  // >1: a pool of std::threads
  std::uint64_t order_seed = 7;   // seed of the random ready-task order (workers == 1)
  // Computes the attention tiles instead of the reference kernels (double only; called from the
  // worker threads, so it must be thread-safe when workers > 1). Not owned.
  TileKernels* tile_kernels = nullptr;
};

// What a rank ends up with for one layer (converted to double); empty tensors when not produced.
struct RankLayerResult {
  Tensor<double> out, dq, dk, dv;
};

struct ExecResult {
  // results[rank][layer]
  std::vector<std::map<int, RankLayerResult>> results;
  std::size_t tasks_run = 0;
};

// Called after each task with its wall-clock start/end in seconds since the run began.
using TaskDoneFn = std::function<void(TaskId, double start_s, double end_s)>;

// Throws std::runtime_error when a task lacks a payload, reads a missing buffer, or deadlocks.
ExecResult execute_reference(const TaskGraph& g, const Scenario& s, const RankLayout& layout,
                             const ExecOptions& opt, const TaskDoneFn& on_done = {});

}  // namespace hcpsim::reference
