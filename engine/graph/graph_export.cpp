#include "engine/graph/graph_export.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>

namespace hcpsim {

std::vector<int> task_peers(const TaskGraph& g, const Task& t) {
  std::vector<int> peers;
  if (t.comm == kNone) return peers;
  const CommOp& op = g.comms()[t.comm];
  if (op.kind == TaskKind::SendRecv) {
    for (const Transfer& x : op.transfers)
      if (x.src == t.rank) peers.push_back(x.dst);
    for (const Transfer& x : op.transfers)
      if (x.dst == t.rank && x.src != t.rank) peers.push_back(x.src);
    return peers;
  }
  for (int r : op.ranks)
    if (r != t.rank) peers.push_back(r);
  return peers;
}

std::vector<const Task*> accepted_by_rank(const TaskGraph& g, const GraphFilter& f) {
  std::vector<const Task*> sorted;
  for (const Task& t : g.tasks())
    if (f.accepts(t)) sorted.push_back(&t);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Task* a, const Task* b) { return a->rank < b->rank; });
  return sorted;
}

void write_graph_json(const TaskGraph& g, const GraphFilter& f, std::ostream& os) {
  nlohmann::ordered_json tasks = nlohmann::ordered_json::array();
  for (const Task& t : g.tasks()) {
    if (!f.accepts(t)) continue;
    nlohmann::ordered_json j;
    j["id"] = g.id_of(t);
    j["rank"] = t.rank;
    j["stream"] = to_string(t.stream);
    j["kind"] = to_string(t.kind);
    j["name"] = g.display_name(t);
    j["layer"] = t.layer;
    j["pass"] = to_string(t.pass);
    j["step"] = t.step;
    j["flops"] = t.flops;
    j["bytes"] = t.bytes;
    j["peers"] = task_peers(g, t);
    j["deps"] = g.deps(g.id_of(t));
    tasks.push_back(std::move(j));
  }
  os << nlohmann::ordered_json{{"tasks", std::move(tasks)}}.dump() << '\n';
}

void write_graph_dot(const TaskGraph& g, const GraphFilter& f, std::ostream& os) {
  os << "digraph hcpsim {\n  rankdir=LR;\n  node [shape=box, fontsize=9];\n";
  int current = -1;
  const std::vector<const Task*> sorted = accepted_by_rank(g, f);
  for (const Task* t : sorted) {
    if (t->rank != current) {
      if (current >= 0) os << "  }\n";
      current = t->rank;
      os << "  subgraph cluster_rank" << current << " {\n    label=\"rank " << current << "\";\n";
    }
    const char* color = is_communication(t->kind) ? "lightblue"
                        : (t->kind == TaskKind::AttentionForward || t->kind == TaskKind::AttentionBackward) ? "orange"
                                                                                                            : "white";
    os << "    t" << g.id_of(*t) << " [label=\"" << g.display_name(*t) << "\\n" << to_string(t->stream)
       << "\", style=filled, fillcolor=" << color << "];\n";
  }
  if (current >= 0) os << "  }\n";
  for (const Task* t : sorted)
    for (TaskId d : g.deps(g.id_of(*t)))
      if (f.accepts(g.task(d))) os << "  t" << d << " -> t" << g.id_of(*t) << ";\n";
  os << "}\n";
}

}  // namespace hcpsim
