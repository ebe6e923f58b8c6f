#pragma once
// ScheduleContext: the state a schedule builder needs while it appends the tasks of one layer and
// pass — per-rank stream order (the last task issued on each stream), pending stream waits, and
// the shared sizes of the scenario (docs/schedules.md). Every builder in this folder goes through it, so
// "a task follows the previous task of its stream" and "an NCCL call starts only after the work
// already queued on its issuing stream" are implemented once.
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/graph/attention_work.h"
#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"
#include "engine/scenario/scenario.h"
#include "engine/schedule/build.h"

namespace hcpsim::schedule {

// Sizes shared by all modes (notation and sizes of docs/schedules.md). Element counts, not bytes, unless named _bytes.
struct Sizes {
  int b = 1;                  // micro-batch size
  std::int64_t S = 0;         // global sequence length, tokens
  std::int64_t s = 0;         // tokens per CP rank before any exchange, S / cp
  int h_t = 0, g_t = 0;       // query / KV heads per TP rank
  int d_qk = 0, d_v = 0;      // head dims
  int e = 2;                  // bytes per element
  bool causal = true;
};
Sizes sizes_of(const Scenario& s);

class ScheduleContext {
 public:
  ScheduleContext(TaskGraph& g, const Scenario& s, const RankLayout& layout, const GraphOptions& opt);

  TaskGraph& g;
  const Scenario& scenario;
  const RankLayout& layout;
  const GraphOptions& options;
  Sizes sz;
  int layer = 0;
  Pass pass = Pass::Forward;

  // Appends a compute/copy task on `stream` of `rank`: it follows the stream's previous task and
  // every pending wait of that stream. Returns its id.
  TaskId add(int rank, TaskKind kind, Stream stream, std::string_view label, int step, double flops,
             double bytes);
  // Appends an NCCL task on `nccl` issued from `issuing`: it follows the previous task on `nccl`,
  // the last task queued on `issuing` and the pending waits of `issuing` (which stay pending).
  TaskId add_nccl(int rank, TaskKind kind, Stream nccl, Stream issuing, std::string_view label,
                  int step, double bytes_sent);
  // The next task on `stream` of `rank` waits for `t` (kNone is ignored).
  void wait(int rank, Stream stream, TaskId t);
  // The next task on `waiter` waits for everything queued so far on `waited` (event record/wait).
  void wait_stream(int rank, Stream waiter, Stream waited);
  // Returns and clears the pending waits of `stream` (for tasks appended outside this context).
  std::vector<TaskId> take_waits(int rank, Stream stream);
  TaskId last(int rank, Stream s) const { return last_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(s)]; }
  // Replaces the stream-order tail of `rank`'s main stream (layer hooks return a new frontier).
  void set_last(int rank, Stream s, TaskId t) { last_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(s)] = t; }

  // Records an attention shape on task `t`.
  void set_attention(TaskId t, const AttentionShape& a);
  // An attention kernel of shape `a` ("attn" / "attn_bwd"): its FLOPs (attention_flops), HBM bytes
  // and shape recorded.
  TaskId add_attention(int rank, Pass pass, Stream stream, int step, const AttentionShape& a);
  // An attention kernel's shape entry (TaskGraph::add_attention), FLOPs and HBM bytes: what
  // add_attention derives from a shape, computed once by a builder that issues the same shape on
  // many ranks (the ring repeats a few hundred shapes over a million kernels).
  struct PreparedAttention {
    std::uint32_t shape = kNone;
    double flops = 0;
    double bytes = 0;
  };
  PreparedAttention prepare_attention(Pass pass, const AttentionShape& a);
  // As add_attention(rank, pass, stream, step, a) for the shape `a` was prepared from.
  TaskId add_attention(int rank, Pass pass, Stream stream, int step, const PreparedAttention& a);
  // Whether tasks carry payloads (options.with_payloads). Builders test it before assembling a
  // payload: its buffer lists cost allocations that payload() would only throw away.
  bool with_payloads() const { return options.with_payloads; }
  // Attaches a payload when options.with_payloads (no-op otherwise).
  void payload(TaskId t, PayloadOp op, std::vector<std::uint64_t> in, std::vector<std::uint64_t> out,
               std::vector<std::int64_t> args = {});
  // Creates the CommOp of a collective or ring exchange and links its member tasks to it.
  std::uint32_t add_comm(CommOp op);

  std::uint64_t key(BufName n, int version = 0) const { return buffer_key(n, layer, version); }

 private:
  std::vector<std::array<TaskId, kStreamCount>> last_;
  std::vector<std::array<std::vector<TaskId>, kStreamCount>> pending_;
  void take_pending(int rank, Stream s, TaskId t);
};

// Attention HBM bytes: read q rows and kv rows (and for backward out, dout, lse; write dq, dkv).
double attention_hbm_bytes(const Sizes& z, Pass pass, std::int64_t q_len, std::int64_t kv_len,
                           int heads, int kv_heads);

}  // namespace hcpsim::schedule
