#include "engine/graph/task_graph.h"

#include <boost/graph/topological_sort.hpp>
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

TaskId TaskGraph::add_task(Task t, std::string_view label) {
  t.id = static_cast<TaskId>(tasks_.size());
  t.label = intern(label);
  tasks_.push_back(t);
  boost::add_vertex(g_);
  return t.id;
}

void TaskGraph::add_dep(TaskId before, TaskId after) {
  if (before == after) throw std::invalid_argument("task cannot depend on itself: " + display_name(tasks_.at(after)));
  if (before >= tasks_.size() || after >= tasks_.size()) throw std::out_of_range("add_dep: unknown task id");
  if (boost::edge(before, after, g_).second) return;
  boost::add_edge(before, after, g_);
}

std::uint32_t TaskGraph::add_comm(CommOp op) {
  comms_.push_back(std::move(op));
  return static_cast<std::uint32_t>(comms_.size() - 1);
}

std::uint32_t TaskGraph::add_attention(const AttentionShape& s) {
  attention_.push_back(s);
  return static_cast<std::uint32_t>(attention_.size() - 1);
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
  for (auto [it, end] = boost::in_edges(id, g_); it != end; ++it)
    out.push_back(static_cast<TaskId>(boost::source(*it, g_)));
  return out;
}

std::vector<TaskId> TaskGraph::successors(TaskId id) const {
  std::vector<TaskId> out;
  for (auto [it, end] = boost::out_edges(id, g_); it != end; ++it)
    out.push_back(static_cast<TaskId>(boost::target(*it, g_)));
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
  std::vector<std::size_t> indeg(tasks_.size());
  std::deque<TaskId> ready;
  for (TaskId i = 0; i < tasks_.size(); ++i) {
    indeg[i] = boost::in_degree(i, g_);
    if (indeg[i] == 0) ready.push_back(i);
  }
  std::vector<TaskId> order;
  order.reserve(tasks_.size());
  while (!ready.empty()) {
    const TaskId v = ready.front();
    ready.pop_front();
    order.push_back(v);
    for (auto [it, end] = boost::out_edges(v, g_); it != end; ++it) {
      const auto w = static_cast<TaskId>(boost::target(*it, g_));
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
