#pragma once
// MeasuredRun: the GPU work of a real, profiled run (PyTorch profiler / Kineto or Nsight Systems), one
// list of kernels per rank, each classified into a measured kind (engine/measured/kernel_rules.h).
// Times are seconds on the profiler's clock of that rank; ranks' clocks are not aligned.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/graph/task_graph.h"

namespace hcpsim {

// What a measured kernel did. The first eleven share their meaning (and name) with hcpsim's task
// kinds; the others have no task of their own in hcpsim's graphs.
enum class MeasuredKind : std::uint8_t {
  AttentionForward, AttentionBackward, Copy, LseMerge, OutCorrection,
  SendRecv, AllToAll, AllGather, ReduceScatter, AllReduce, Gemm,
  OtherCommunication,   // NCCL broadcast, reduce, barrier, ...
  MemoryBound,          // elementwise, normalisation, softmax, casts, memset
  Optimizer,            // fused / multi-tensor optimizer kernels
  Other                 // no rule matched: listed by name in `compare`
};
constexpr int kMeasuredKindCount = 15;
// "attention_forward", ..., "gemm" (as TaskKind), "other_communication", "memory_bound",
// "optimizer", "other".
const char* to_string(MeasuredKind k);
bool parse_measured_kind(std::string_view s, MeasuredKind& out);
bool is_communication(MeasuredKind k);
// The measured kind a predicted task of kind `k` is compared with (same name).
MeasuredKind measured_kind_of(TaskKind k);

// Pass of a measured kernel: from its name (attention fprop/bprop) or an enclosing range whose name
// says forward or backward; Unknown when neither tells.
enum class MeasuredPass : std::uint8_t { Forward, Backward, Unknown };
const char* to_string(MeasuredPass p);   // "forward", "backward", "unknown"

struct MeasuredKernel {
  double start_s = 0;
  double end_s = 0;
  std::uint32_t name = 0;        // index into MeasuredRun::names
  std::int32_t stream = 0;       // CUDA stream id as the profiler recorded it
  std::int32_t step = -1;        // index of the profiled step (0 = first); -1: outside every step
  MeasuredKind kind = MeasuredKind::Other;
  MeasuredPass pass = MeasuredPass::Unknown;
  double bytes = 0;              // message bytes when the profiler recorded them (NCCL), else 0
  double launch_s = -1;          // start of the host call that launched it (same clock); -1: not recorded
};

struct MeasuredRank {
  int rank = 0;
  std::string source;                    // file it came from
  std::vector<MeasuredKernel> kernels;   // sorted by start
  int steps = 0;                         // profiled steps (ProfilerStep#N or NVTX "step" ranges); 0: none
  std::map<std::int32_t, Stream> streams;   // CUDA stream id -> hcpsim stream (assign_streams)
};

struct MeasuredRun {
  std::string format;                    // "kineto" or "nsys"
  int world_size = 0;                    // from the profiler, else the highest rank + 1
  std::vector<std::string> names;        // kernel names (interned)
  std::vector<MeasuredRank> ranks;       // sorted by rank, one entry per rank
  std::vector<std::string> notes;        // what the reader inferred (shown by compare)
};

// Interns kernel names while a reader runs.
class NameTable {
 public:
  explicit NameTable(std::vector<std::string>& names) : names_(names) {}
  std::uint32_t id(std::string_view name);

 private:
  std::vector<std::string>& names_;
  std::map<std::string, std::uint32_t, std::less<>> index_;
};

// The step time of a profiled run: on each rank, the mean over its profiled steps of first kernel
// start to last kernel end; the largest over ranks (the slowest rank sets the step; ranks' clocks
// are not aligned, so spans are not compared across ranks). Throws std::runtime_error when no rank
// has step ranges (ProfilerStep#N or NVTX "step N").
double measured_step_s(const MeasuredRun& run);

// Maps each CUDA stream of `r` to an hcpsim stream by what most of its kernel time is: compute
// streams to main (the busiest) and cp (the others); communication streams to nccl:p2p (send/recv),
// nccl:a2a (all-to-all) and nccl:tp (all-gather, reduce-scatter, all-reduce, other collectives).
void assign_streams(MeasuredRank& r);

}  // namespace hcpsim
