#pragma once
// TaskGraph: every per-rank compute, copy and communication task of one or more layers of CP
// attention, with dependencies (stream order is expressed as edges too). Built once by a schedule
// builder (engine/schedule/), then run unchanged by any backend (analytic, simgrid, reference, cuda).
//
// Storage: tasks live in a vector indexed by TaskId. Edges are collected as a flat list while the
// graph is built and turned, on first query, into a Boost.Graph bidirectional compressed-sparse-row
// graph over the same indices (about 12 bytes per edge: million-task graphs stay small). Communication tasks of one collective (or one ring exchange) share a
// CommOp; attention tasks point at an AttentionShape.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <atomic>
#include <mutex>

#include <boost/graph/compressed_sparse_row_graph.hpp>

#include "engine/graph/payload.h"
#include "engine/layout/rank_layout.h"

namespace hcpsim {

using TaskId = std::uint32_t;
constexpr std::uint32_t kNone = 0xffffffffu;

enum class TaskKind : std::uint8_t {
  AttentionForward, AttentionBackward, Copy, LseMerge, OutCorrection,
  SendRecv, AllToAll, AllGather, ReduceScatter, AllReduce, Gemm
};
constexpr int kTaskKindCount = 11;
// "attention_forward", "attention_backward", "copy", "lse_merge", "out_correction", "send_recv",
// "all_to_all", "all_gather", "reduce_scatter", "all_reduce", "gemm"
const char* to_string(TaskKind k);
bool parse_task_kind(std::string_view s, TaskKind& out);
constexpr bool is_communication(TaskKind k) {
  return k == TaskKind::SendRecv || k == TaskKind::AllToAll || k == TaskKind::AllGather ||
         k == TaskKind::ReduceScatter || k == TaskKind::AllReduce;
}

// Streams of one GPU. Compute runs on main/cp; each NCCL communicator has its own stream.
enum class Stream : std::uint8_t { Main, Cp, NcclA2A, NcclP2P, NcclCp, NcclTp };
constexpr int kStreamCount = 6;
// "main", "cp", "nccl:a2a", "nccl:p2p", "nccl:cp", "nccl:tp"
const char* to_string(Stream s);
bool parse_stream(std::string_view s, Stream& out);

enum class Pass : std::uint8_t { Forward, Backward };
const char* to_string(Pass p);   // "forward", "backward"

// Which part of the causal block matrix an attention chunk covers (docs/schedules.md, p2p ring).
enum class MaskSection : std::uint8_t {
  Diagonal,     // own chunk pair, top-left causal mask, ~2c^2 + c pairs
  Lower,        // full Q x first half of KV, no mask
  Upper,        // second half of Q x full KV, no mask
  Full,         // no_mask attention, everything
  Causal,       // one causal kernel over the whole (post-a2a) sequence, top-left aligned
  BottomRight   // all_gather: Q chunk x KV prefix, bottom-right aligned causal mask
};
const char* to_string(MaskSection m);   // "diagonal", "lower", "upper", "full", "causal", "bottom_right"

struct AttentionShape {
  int batch = 1;
  std::int64_t q_len = 0;
  std::int64_t kv_len = 0;
  int heads = 0;          // query heads of this kernel (h' of docs/schedules.md)
  int kv_heads = 0;
  int head_dim_qk = 0;
  int head_dim_v = 0;
  MaskSection section = MaskSection::Full;
  double pairs = 0;       // exact (q,k) pairs computed per head and batch element
  int kv_source = -1;     // ring rank (p2p, a2a+p2p) or CP index whose K/V this kernel reads; -1 n/a
};

// 40 bytes: a million-task graph is dominated by this array. A task's id is its index in
// TaskGraph::tasks() (TaskGraph::id_of); its payload index lives in a side table (payload_of).
struct Task {
  double flops = 0;                // 2 FLOPs per multiply-add (docs/schedules.md "FLOPs")
  double bytes = 0;                // comm: bytes this rank sends over links; compute: HBM read+write
  std::int32_t rank = 0;
  std::int32_t step = -1;          // ring step, or -1 outside a ring
  std::uint32_t comm = kNone;      // index into TaskGraph::comms() for communication tasks
  std::uint32_t attention = kNone; // index into TaskGraph::attention_shapes() for attention tasks
  std::uint16_t label = 0;         // interned short label ("attn", "perm_q", "kv_concat", ...)
  std::int16_t layer = 0;
  TaskKind kind = TaskKind::Copy;
  Stream stream = Stream::Main;
  Pass pass = Pass::Forward;
};

// One point-to-point transfer inside a CommOp.
struct Transfer {
  std::int32_t src = 0;
  std::int32_t dst = 0;
  double bytes = 0;
};

// One collective call (or one ring exchange step) shared by its member tasks, one task per member.
// Semantics for backends:
//  - SendRecv: each transfer starts when both its src task and its dst task are ready; a member
//    task ends when all transfers it sends or receives have ended.
//  - AllToAll / AllGather / ReduceScatter / AllReduce: starts when every member task is ready;
//    `bytes_per_rank` is the logical size per member (a2a: the whole tensor T of a rank, of which
//    (n-1)/n leaves the rank; all_gather: the local shard; reduce_scatter: the output shard;
//    all_reduce: the buffer). Backends lower them (pairwise flows, NCCL ring).
struct CommOp {
  TaskKind kind = TaskKind::SendRecv;
  GroupKind group = GroupKind::CP;   // process group kind the call runs on
  int group_index = 0;               // index into RankLayout::groups(group)
  std::vector<std::int32_t> ranks;   // members, in group order
  std::vector<TaskId> tasks;         // member tasks, same order as `ranks`
  std::vector<Transfer> transfers;   // SendRecv only
  double bytes_per_rank = 0;         // collectives only
};

class TaskGraph {
 public:
  // Out-edges only (4 bytes per edge and per task); the in-edges are a second graph of the same
  // type, built on the first query that needs them (deps(), in_degree()).
  using Adjacency = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property,
                                                       boost::no_property, boost::no_property,
                                                       std::uint32_t, std::uint32_t>;
  TaskGraph() = default;
  TaskGraph(const TaskGraph& o);
  TaskGraph& operator=(const TaskGraph& o);
  TaskGraph(TaskGraph&& o) noexcept;
  TaskGraph& operator=(TaskGraph&& o) noexcept;

  // Adds a task and returns its id (its index in tasks()).
  TaskId add_task(Task t, std::string_view label);
  // Adds a default Task with this label and returns its id; the caller sets its fields through
  // task(id). For builders appending millions of tasks: the fields are written once, in place,
  // instead of into a Task on the stack that is then copied.
  TaskId add_task(std::string_view label);
  // `after` waits for `before`. Duplicate edges are ignored; self-edges throw.
  void add_dep(TaskId before, TaskId after);
  // Capacity hints for builders that know roughly how big the graph will get (no effect on content).
  void reserve(std::size_t tasks, std::size_t edges);
  std::uint32_t add_comm(CommOp op);
  std::uint32_t add_attention(const AttentionShape& s);
  std::uint32_t add_payload(TaskPayload p);
  std::uint16_t intern(std::string_view label);

  std::size_t size() const { return tasks_.size(); }
  std::size_t edge_count() const { return boost::num_edges(adjacency()); }
  // Edges added so far, counted without building the adjacency (duplicates may be counted).
  std::size_t edges_added() const { return boost::num_edges(g_) + pending_edges_.size(); }
  const Task& task(TaskId id) const { return tasks_[id]; }
  Task& task(TaskId id) { return tasks_[id]; }
  const std::vector<Task>& tasks() const { return tasks_; }
  // Id of a task held by this graph (a reference obtained from task() or tasks()); throws for a
  // Task that is not an element of this graph (for example a copy).
  TaskId id_of(const Task& t) const;
  // Index into payloads() of a task's payload, or kNone (graphs built without payloads).
  std::uint32_t payload_of(TaskId id) const { return id < payload_of_.size() ? payload_of_[id] : kNone; }
  void set_payload(TaskId id, std::uint32_t payload);
  std::vector<TaskId> deps(TaskId id) const;        // predecessors
  std::vector<TaskId> successors(TaskId id) const;
  std::size_t in_degree(TaskId id) const { return boost::out_degree(id, reverse_adjacency()); }
  // Number of predecessors of every task, counted from the out-edges (no reverse graph needed).
  std::vector<std::uint32_t> in_degrees() const;
  // The dependency graph (edges before -> after). Building it is lazy and thread-safe; adding a
  // dependency afterwards rebuilds it on the next query.
  const Adjacency& adjacency() const;
  // The reversed graph (edges after -> before), built on first use.
  const Adjacency& reverse_adjacency() const;

  const std::vector<CommOp>& comms() const { return comms_; }
  CommOp& comm(std::uint32_t i) { return comms_[i]; }
  const std::vector<AttentionShape>& attention_shapes() const { return attention_; }
  const AttentionShape& attention_of(const Task& t) const { return attention_.at(t.attention); }
  const std::vector<TaskPayload>& payloads() const { return payloads_; }
  std::string_view label(const Task& t) const { return labels_[t.label]; }
  // "L0.fwd.s3.attn" style name: layer, pass, step (when >= 0) and label.
  std::string display_name(const Task& t) const;

  // Topological order; throws std::runtime_error naming tasks on a cycle.
  std::vector<TaskId> topological_order() const;

  // Graph-wide facts the builder records.
  int world_size = 0;
  int layers = 1;
  std::string scenario_name;

 private:
  void finalize() const;

  std::vector<Task> tasks_;
  std::vector<std::uint32_t> payload_of_;                           // by task id; empty without payloads
  mutable std::vector<std::pair<TaskId, TaskId>> pending_edges_;   // added since the last finalize
  // True while every pending edge was added in non-decreasing order of its `after` task: then the
  // edges of one task are contiguous, duplicates are dropped as they arrive, and finalize() needs
  // no sort. Builders add a task's dependencies right after the task, so this is the usual case.
  mutable bool pending_in_target_order_ = true;
  mutable Adjacency g_;
  mutable Adjacency reverse_;
  mutable bool reverse_built_ = false;
  mutable std::atomic<bool> dirty_{false};
  mutable std::mutex finalize_mutex_;
  struct ShapeHash {
    std::size_t operator()(const AttentionShape& s) const;
  };
  struct ShapeEqual {
    bool operator()(const AttentionShape& a, const AttentionShape& b) const;
  };
  std::unordered_map<AttentionShape, std::uint32_t, ShapeHash, ShapeEqual> attention_index_;   // dedup
  std::vector<CommOp> comms_;
  std::vector<AttentionShape> attention_;
  std::vector<TaskPayload> payloads_;
  std::vector<std::string> labels_;
  std::unordered_map<std::string, std::uint16_t> label_index_;
  // Labels are mostly string literals: a small cache keyed by the characters' address skips the
  // hash lookup (a hit is confirmed by comparing the text, so a reused address cannot mislead it).
  struct LabelCacheEntry {
    const char* data = nullptr;
    std::size_t size = 0;
    std::uint16_t id = 0;
  };
  std::array<LabelCacheEntry, 64> label_cache_{};
};

}  // namespace hcpsim
