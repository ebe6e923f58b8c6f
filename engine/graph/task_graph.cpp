#include "engine/graph/task_graph.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <stdexcept>

#include "engine/core/enum_names.h"

namespace hcpsim {

namespace {

constexpr auto kTaskKindNames = std::to_array<EnumName<TaskKind>>({
    {TaskKind::AttentionForward, "attention_forward"}, {TaskKind::AttentionBackward, "attention_backward"},
    {TaskKind::Copy, "copy"}, {TaskKind::LseMerge, "lse_merge"}, {TaskKind::OutCorrection, "out_correction"},
    {TaskKind::SendRecv, "send_recv"}, {TaskKind::AllToAll, "all_to_all"}, {TaskKind::AllGather, "all_gather"},
    {TaskKind::ReduceScatter, "reduce_scatter"}, {TaskKind::AllReduce, "all_reduce"}, {TaskKind::Gemm, "gemm"}});
static_assert(kTaskKindNames.size() == kTaskKindCount);

constexpr auto kStreamNames = std::to_array<EnumName<Stream>>(
    {{Stream::Main, "main"}, {Stream::Cp, "cp"}, {Stream::NcclA2A, "nccl:a2a"}, {Stream::NcclP2P, "nccl:p2p"},
     {Stream::NcclCp, "nccl:cp"}, {Stream::NcclTp, "nccl:tp"}});
static_assert(kStreamNames.size() == kStreamCount);

// Sets `out` when `name` is in `table`.
template <typename E, std::size_t N>
bool parse_into(const EnumNames<E, N>& table, std::string_view name, E& out) {
  const auto v = find_value(table, name);
  if (v) out = *v;
  return v.has_value();
}

}  // namespace

const char* to_string(TaskKind k) { return name_of(kTaskKindNames, k); }
bool parse_task_kind(std::string_view s, TaskKind& out) { return parse_into(kTaskKindNames, s, out); }

const char* to_string(Stream s) { return name_of(kStreamNames, s); }
bool parse_stream(std::string_view s, Stream& out) { return parse_into(kStreamNames, s, out); }

const char* to_string(Pass p) { return p == Pass::Forward ? "forward" : "backward"; }

const char* to_string(MaskSection m) {
  static const char* names[] = {"diagonal", "lower", "upper", "full", "causal", "bottom_right"};
  return names[static_cast<int>(m)];
}

TaskGraph::TaskGraph(const TaskGraph& o) { *this = o; }

TaskGraph& TaskGraph::operator=(const TaskGraph& o) {
  if (this == &o) return *this;
  o.finalize();
  tasks_ = o.tasks_;
  payload_of_ = o.payload_of_;
  pending_edges_.clear();
  pending_in_target_order_ = true;
  g_ = o.g_;
  reverse_ = Adjacency();
  reverse_built_ = false;
  dirty_ = false;
  comms_ = o.comms_;
  attention_ = o.attention_;
  attention_index_ = o.attention_index_;
  payloads_ = o.payloads_;
  labels_ = o.labels_;
  label_index_ = o.label_index_;
  label_cache_ = {};
  world_size = o.world_size;
  layers = o.layers;
  scenario_name = o.scenario_name;
  return *this;
}

TaskGraph::TaskGraph(TaskGraph&& o) noexcept { *this = std::move(o); }

TaskGraph& TaskGraph::operator=(TaskGraph&& o) noexcept {
  if (this == &o) return *this;
  tasks_ = std::move(o.tasks_);
  payload_of_ = std::move(o.payload_of_);
  pending_edges_ = std::move(o.pending_edges_);
  pending_in_target_order_ = o.pending_in_target_order_;
  g_ = std::move(o.g_);
  reverse_ = std::move(o.reverse_);
  reverse_built_ = o.reverse_built_;
  dirty_ = o.dirty_.load();
  comms_ = std::move(o.comms_);
  attention_ = std::move(o.attention_);
  attention_index_ = std::move(o.attention_index_);
  payloads_ = std::move(o.payloads_);
  labels_ = std::move(o.labels_);
  label_index_ = std::move(o.label_index_);
  label_cache_ = o.label_cache_;
  world_size = o.world_size;
  layers = o.layers;
  scenario_name = std::move(o.scenario_name);
  return *this;
}

TaskId TaskGraph::add_task(Task t, std::string_view label) {
  const TaskId id = add_task(label);
  const std::uint16_t interned = tasks_.back().label;
  tasks_.back() = t;
  tasks_.back().label = interned;
  return id;
}

TaskId TaskGraph::add_task(std::string_view label) {
  if (tasks_.size() >= kNone) throw std::length_error("task graph: more than 2^32-1 tasks");
  const std::uint16_t interned = intern(label);
  tasks_.emplace_back().label = interned;
  dirty_.store(true, std::memory_order_relaxed);
  return static_cast<TaskId>(tasks_.size() - 1);
}

TaskId TaskGraph::id_of(const Task& t) const {
  if (tasks_.empty() || &t < tasks_.data() || &t >= tasks_.data() + tasks_.size())
    throw std::logic_error("TaskGraph::id_of: the task is not an element of this graph");
  return static_cast<TaskId>(&t - tasks_.data());
}

void TaskGraph::set_payload(TaskId id, std::uint32_t payload) {
  if (id >= tasks_.size()) throw std::out_of_range("set_payload: unknown task id");
  if (payload_of_.size() < tasks_.size()) payload_of_.resize(tasks_.size(), kNone);
  payload_of_[id] = payload;
}

void TaskGraph::reserve(std::size_t tasks, std::size_t edges) {
  tasks_.reserve(tasks);
  pending_edges_.reserve(edges);
}

const TaskGraph::Adjacency& TaskGraph::adjacency() const {
  if (dirty_.load(std::memory_order_acquire)) finalize();
  return g_;
}

void TaskGraph::finalize() const {
  std::lock_guard<std::mutex> lock(finalize_mutex_);
  if (!dirty_.load(std::memory_order_relaxed)) return;
  auto& pending = pending_edges_;
  const auto old_edges = boost::num_edges(g_);
  if (old_edges > 0 || !pending_in_target_order_) {
    // General case: merge with the edges already in the CSR graph, sort, drop duplicates.
    pending.reserve(pending.size() + old_edges);
    for (auto [it, end] = boost::edges(g_); it != end; ++it)
      pending.emplace_back(static_cast<TaskId>(boost::source(*it, g_)), static_cast<TaskId>(boost::target(*it, g_)));
    std::sort(pending.begin(), pending.end());
    pending.erase(std::unique(pending.begin(), pending.end()), pending.end());
  }
  // Otherwise add_dep has already dropped duplicates. Boost sorts by source itself (counting sort).
  g_ = Adjacency(boost::edges_are_unsorted_multi_pass, pending.begin(), pending.end(),
                 static_cast<std::uint32_t>(tasks_.size()));
  std::vector<std::pair<TaskId, TaskId>>().swap(pending);
  pending_in_target_order_ = true;
  reverse_ = Adjacency();
  reverse_built_ = false;
  dirty_.store(false, std::memory_order_release);
}

const TaskGraph::Adjacency& TaskGraph::reverse_adjacency() const {
  const Adjacency& fwd = adjacency();
  std::lock_guard<std::mutex> lock(finalize_mutex_);
  if (!reverse_built_) {
    std::vector<std::pair<TaskId, TaskId>> rev;
    rev.reserve(boost::num_edges(fwd));
    for (auto [it, end] = boost::edges(fwd); it != end; ++it)
      rev.emplace_back(static_cast<TaskId>(boost::target(*it, fwd)), static_cast<TaskId>(boost::source(*it, fwd)));
    reverse_ = Adjacency(boost::edges_are_unsorted_multi_pass, rev.begin(), rev.end(),
                         static_cast<std::uint32_t>(tasks_.size()));
    reverse_built_ = true;
  }
  return reverse_;
}

std::vector<std::uint32_t> TaskGraph::in_degrees() const {
  const Adjacency& g = adjacency();
  std::vector<std::uint32_t> d(tasks_.size(), 0);
  for (TaskId v = 0; v < tasks_.size(); ++v)
    for (auto [it, end] = boost::out_edges(v, g); it != end; ++it) ++d[boost::target(*it, g)];
  return d;
}

void TaskGraph::add_dep(TaskId before, TaskId after) {
  if (before == after) throw std::invalid_argument("task cannot depend on itself: " + display_name(tasks_.at(after)));
  if (before >= tasks_.size() || after >= tasks_.size()) throw std::out_of_range("add_dep: unknown task id");
  auto& pending = pending_edges_;
  if (pending_in_target_order_ && !pending.empty()) {
    if (after < pending.back().second) {
      pending_in_target_order_ = false;   // finalize() will sort and deduplicate
    } else {
      // The edges into `after` are the tail of the list: a duplicate is found there.
      for (auto it = pending.rbegin(); it != pending.rend() && it->second == after; ++it)
        if (it->first == before) return;
    }
  }
  pending.emplace_back(before, after);
  dirty_.store(true, std::memory_order_relaxed);
}

std::uint32_t TaskGraph::add_comm(CommOp op) {
  comms_.push_back(std::move(op));
  return static_cast<std::uint32_t>(comms_.size() - 1);
}

std::size_t TaskGraph::ShapeHash::operator()(const AttentionShape& s) const {
  std::size_t h = 1469598103934665603ull;
  auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  mix(static_cast<std::uint64_t>(s.batch));
  mix(static_cast<std::uint64_t>(s.q_len));
  mix(static_cast<std::uint64_t>(s.kv_len));
  mix(static_cast<std::uint64_t>(s.heads) << 32 | static_cast<std::uint32_t>(s.kv_heads));
  mix(static_cast<std::uint64_t>(s.head_dim_qk) << 32 | static_cast<std::uint32_t>(s.head_dim_v));
  mix(static_cast<std::uint64_t>(s.section));
  mix(std::hash<double>{}(s.pairs));
  mix(static_cast<std::uint64_t>(static_cast<std::uint32_t>(s.kv_source)));
  return h;
}

bool TaskGraph::ShapeEqual::operator()(const AttentionShape& a, const AttentionShape& b) const {
  return a.batch == b.batch && a.q_len == b.q_len && a.kv_len == b.kv_len && a.heads == b.heads &&
         a.kv_heads == b.kv_heads && a.head_dim_qk == b.head_dim_qk && a.head_dim_v == b.head_dim_v &&
         a.section == b.section && a.pairs == b.pairs && a.kv_source == b.kv_source;
}

std::uint32_t TaskGraph::add_attention(const AttentionShape& s) {
  // Identical shapes share one entry (a ring repeats a handful of shapes thousands of times).
  const auto next = static_cast<std::uint32_t>(attention_.size());
  const auto [it, inserted] = attention_index_.try_emplace(s, next);
  if (inserted) attention_.push_back(s);
  return it->second;
}

std::uint32_t TaskGraph::add_payload(TaskPayload p) {
  payloads_.push_back(std::move(p));
  return static_cast<std::uint32_t>(payloads_.size() - 1);
}

std::uint16_t TaskGraph::intern(std::string_view label) {
  LabelCacheEntry& c = label_cache_[(reinterpret_cast<std::uintptr_t>(label.data()) >> 3) % label_cache_.size()];
  if (c.data == label.data() && c.size == label.size() && labels_[c.id] == label) return c.id;
  std::uint16_t id = 0;
  auto it = label_index_.find(std::string(label));
  if (it != label_index_.end()) {
    id = it->second;
  } else {
    if (labels_.size() > 0xffff) throw std::length_error("task graph: more than 65,536 distinct task labels");
    id = static_cast<std::uint16_t>(labels_.size());
    labels_.emplace_back(label);
    label_index_.emplace(std::string(label), id);
  }
  c = {label.data(), label.size(), id};
  return id;
}

namespace {

// The tasks at the heads of `id`'s out-edges in `graph` (successors, or dependencies in the reverse graph).
template <typename Graph>
std::vector<TaskId> out_neighbours(const Graph& graph, TaskId id) {
  std::vector<TaskId> out;
  for (auto [it, end] = boost::out_edges(id, graph); it != end; ++it)
    out.push_back(static_cast<TaskId>(boost::target(*it, graph)));
  return out;
}

}  // namespace

std::vector<TaskId> TaskGraph::deps(TaskId id) const { return out_neighbours(reverse_adjacency(), id); }
std::vector<TaskId> TaskGraph::successors(TaskId id) const { return out_neighbours(adjacency(), id); }

std::string TaskGraph::display_name(const Task& t) const {
  std::string s = "L";   // appended piece by piece (GCC 12 warns falsely about "L" + std::string)
  s += std::to_string(t.layer);
  s += t.pass == Pass::Forward ? ".fwd" : ".bwd";
  if (t.step >= 0) {
    s += ".s";
    s += std::to_string(t.step);
  }
  s += '.';
  s += labels_.at(t.label);
  return s;
}

std::vector<TaskId> TaskGraph::topological_order() const {
  // Kahn's algorithm: linear, and on a cycle it can name the tasks that never became ready.
  const auto& g = adjacency();
  std::vector<std::uint32_t> indeg = in_degrees();
  std::deque<TaskId> ready;
  for (TaskId i = 0; i < tasks_.size(); ++i)
    if (indeg[i] == 0) ready.push_back(i);
  std::vector<TaskId> order;
  order.reserve(tasks_.size());
  while (!ready.empty()) {
    const TaskId v = ready.front();
    ready.pop_front();
    order.push_back(v);
    for (auto [it, end] = boost::out_edges(v, g); it != end; ++it) {
      const auto w = static_cast<TaskId>(boost::target(*it, g));
      if (--indeg[w] == 0) ready.push_back(w);
    }
  }
  if (order.size() != tasks_.size()) {
    std::string names;
    int shown = 0;
    for (TaskId i = 0; i < tasks_.size() && shown < 5; ++i)
      if (indeg[i] > 0) {
        names += (shown ? ", " : "") + ("rank " + std::to_string(tasks_[i].rank) + " " + display_name(tasks_[i]));
        ++shown;
      }
    throw std::runtime_error("task graph has a dependency cycle; " +
                             std::to_string(tasks_.size() - order.size()) + " tasks never become ready, e.g. " + names);
  }
  return order;
}

}  // namespace hcpsim
