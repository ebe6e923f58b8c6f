#include "engine/graph/task_graph.h"

#include <algorithm>
#include <deque>
#include <stdexcept>

namespace hcpsim {

const char* to_string(TaskKind k) {
  static const char* names[] = {"attention_forward", "attention_backward", "copy", "lse_merge",
                                "out_correction", "send_recv", "all_to_all", "all_gather",
                                "reduce_scatter", "all_reduce", "gemm"};
  return names[static_cast<int>(k)];
}

bool parse_task_kind(std::string_view s, TaskKind& out) {
  for (int i = 0; i < kTaskKindCount; ++i)
    if (s == to_string(static_cast<TaskKind>(i))) {
      out = static_cast<TaskKind>(i);
      return true;
    }
  return false;
}

bool is_communication(TaskKind k) {
  return k == TaskKind::SendRecv || k == TaskKind::AllToAll || k == TaskKind::AllGather ||
         k == TaskKind::ReduceScatter || k == TaskKind::AllReduce;
}

const char* to_string(Stream s) {
  static const char* names[] = {"main", "cp", "nccl:a2a", "nccl:p2p", "nccl:cp", "nccl:tp"};
  return names[static_cast<int>(s)];
}

bool parse_stream(std::string_view s, Stream& out) {
  for (int i = 0; i < kStreamCount; ++i)
    if (s == to_string(static_cast<Stream>(i))) {
      out = static_cast<Stream>(i);
      return true;
    }
  return false;
}

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
  pending_edges_.clear();
  g_ = o.g_;
  dirty_ = false;
  comms_ = o.comms_;
  attention_ = o.attention_;
  attention_index_ = o.attention_index_;
  payloads_ = o.payloads_;
  labels_ = o.labels_;
  label_index_ = o.label_index_;
  world_size = o.world_size;
  layers = o.layers;
  scenario_name = o.scenario_name;
  return *this;
}

TaskGraph::TaskGraph(TaskGraph&& o) noexcept { *this = std::move(o); }

TaskGraph& TaskGraph::operator=(TaskGraph&& o) noexcept {
  if (this == &o) return *this;
  tasks_ = std::move(o.tasks_);
  pending_edges_ = std::move(o.pending_edges_);
  g_ = std::move(o.g_);
  dirty_ = o.dirty_.load();
  comms_ = std::move(o.comms_);
  attention_ = std::move(o.attention_);
  attention_index_ = std::move(o.attention_index_);
  payloads_ = std::move(o.payloads_);
  labels_ = std::move(o.labels_);
  label_index_ = std::move(o.label_index_);
  world_size = o.world_size;
  layers = o.layers;
  scenario_name = std::move(o.scenario_name);
  return *this;
}

TaskId TaskGraph::add_task(Task t, std::string_view label) {
  t.id = static_cast<TaskId>(tasks_.size());
  t.label = intern(label);
  tasks_.push_back(t);
  dirty_ = true;
  return t.id;
}

const TaskGraph::Adjacency& TaskGraph::adjacency() const {
  if (dirty_.load(std::memory_order_acquire)) finalize();
  return g_;
}

void TaskGraph::finalize() const {
  std::lock_guard<std::mutex> lock(finalize_mutex_);
  if (!dirty_.load(std::memory_order_relaxed)) return;
  // Merge the edges of the current CSR graph with the pending ones, drop duplicates, rebuild.
  auto& pending = pending_edges_;
  const auto old_edges = boost::num_edges(g_);
  if (old_edges > 0) {
    pending.reserve(pending.size() + old_edges);
    for (auto [it, end] = boost::edges(g_); it != end; ++it)
      pending.emplace_back(static_cast<TaskId>(boost::source(*it, g_)), static_cast<TaskId>(boost::target(*it, g_)));
  }
  std::sort(pending.begin(), pending.end());
  pending.erase(std::unique(pending.begin(), pending.end()), pending.end());
  g_ = Adjacency(boost::edges_are_unsorted_multi_pass, pending.begin(), pending.end(),
                 static_cast<std::uint32_t>(tasks_.size()));
  std::vector<std::pair<TaskId, TaskId>>().swap(pending);
  dirty_.store(false, std::memory_order_release);
}

void TaskGraph::add_dep(TaskId before, TaskId after) {
  if (before == after) throw std::invalid_argument("task cannot depend on itself: " + display_name(tasks_.at(after)));
  if (before >= tasks_.size() || after >= tasks_.size()) throw std::out_of_range("add_dep: unknown task id");
  pending_edges_.emplace_back(before, after);   // duplicates are dropped when the graph is finalized
  dirty_ = true;
}

std::uint32_t TaskGraph::add_comm(CommOp op) {
  comms_.push_back(std::move(op));
  return static_cast<std::uint32_t>(comms_.size() - 1);
}

std::uint32_t TaskGraph::add_attention(const AttentionShape& s) {
  // Identical shapes share one entry (a ring repeats a handful of shapes thousands of times).
  std::string key(reinterpret_cast<const char*>(&s.batch), sizeof(int));
  key.append(reinterpret_cast<const char*>(&s.q_len), sizeof(s.q_len));
  key.append(reinterpret_cast<const char*>(&s.kv_len), sizeof(s.kv_len));
  key.append(reinterpret_cast<const char*>(&s.heads), sizeof(int) * 4);
  key.push_back(static_cast<char>(s.section));
  key.append(reinterpret_cast<const char*>(&s.pairs), sizeof(s.pairs));
  key.append(reinterpret_cast<const char*>(&s.kv_source), sizeof(s.kv_source));
  auto it = attention_index_.find(key);
  if (it != attention_index_.end()) return it->second;
  attention_.push_back(s);
  const auto id = static_cast<std::uint32_t>(attention_.size() - 1);
  attention_index_.emplace(std::move(key), id);
  return id;
}

std::uint32_t TaskGraph::add_payload(TaskPayload p) {
  payloads_.push_back(std::move(p));
  return static_cast<std::uint32_t>(payloads_.size() - 1);
}

std::uint32_t TaskGraph::intern(std::string_view label) {
  auto it = label_index_.find(std::string(label));
  if (it != label_index_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(labels_.size());
  labels_.emplace_back(label);
  label_index_.emplace(std::string(label), id);
  return id;
}

std::vector<TaskId> TaskGraph::deps(TaskId id) const {
  std::vector<TaskId> out;
  const auto& g = adjacency();
  for (auto [it, end] = boost::in_edges(id, g); it != end; ++it)
    out.push_back(static_cast<TaskId>(boost::source(*it, g)));
  return out;
}

std::vector<TaskId> TaskGraph::successors(TaskId id) const {
  std::vector<TaskId> out;
  const auto& g = adjacency();
  for (auto [it, end] = boost::out_edges(id, g); it != end; ++it)
    out.push_back(static_cast<TaskId>(boost::target(*it, g)));
  return out;
}

std::string TaskGraph::display_name(const Task& t) const {
  std::string s = "L" + std::to_string(t.layer) + (t.pass == Pass::Forward ? ".fwd" : ".bwd");
  if (t.step >= 0) s += ".s" + std::to_string(t.step);
  s += '.';
  s += labels_.at(t.label);
  return s;
}

std::vector<TaskId> TaskGraph::topological_order() const {
  // Kahn's algorithm: linear, and on a cycle it can name the tasks that never became ready.
  const auto& g = adjacency();
  std::vector<std::size_t> indeg(tasks_.size());
  std::deque<TaskId> ready;
  for (TaskId i = 0; i < tasks_.size(); ++i) {
    indeg[i] = boost::in_degree(i, g);
    if (indeg[i] == 0) ready.push_back(i);
  }
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
