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

namespace {

// The tasks `f` accepts, grouped by rank (graph order within a rank).
std::vector<const Task*> accepted_by_rank(const TaskGraph& g, const GraphFilter& f) {
  std::vector<const Task*> sorted;
  for (const Task& t : g.tasks())
    if (f.accepts(t)) sorted.push_back(&t);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Task* a, const Task* b) { return a->rank < b->rank; });
  return sorted;
}

}  // namespace

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

std::string ring_chunks(int j, int A, int cp) {
  std::string s;
  for (int a = 0; a < A; ++a) s += (a ? " C" : "C") + std::to_string(j * A + a);
  s += " |";
  for (int a = A - 1; a >= 0; --a) s += " C" + std::to_string(2 * cp - 1 - (j * A + a));
  return s;
}

namespace {

std::string mib(double bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g MiB", bytes / 1048576.0);
  return buf;
}

std::string sci(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

std::string section_text(MaskSection m) {
  switch (m) {
    case MaskSection::Diagonal: return "diagonal: all Q x own KV, causal";
    case MaskSection::Lower: return "lower: all Q x first KV half, no mask";
    case MaskSection::Upper: return "upper: second Q half x all KV, no mask";
    case MaskSection::Full: return "full: all Q x all KV, no mask";
    case MaskSection::Causal: return "causal over the whole sequence";
    case MaskSection::BottomRight: return "Q chunk x KV prefix, bottom-right causal";
  }
  return "";
}

}  // namespace

void write_graph_text(const TaskGraph& g, const Scenario& s, const GraphFilter& f, std::ostream& os) {
  const int cp = s.cp();
  const auto& hcp = s.model.hierarchical_context_parallel_sizes;
  int last_rank = -1, last_layer = -1;
  int last_pass = -1;
  const std::vector<const Task*> sorted = accepted_by_rank(g, f);
  for (const Task* tp : sorted) {
    const Task& t = *tp;
    const CpCommType type = s.comm_type_for_layer(t.layer);
    const int A = type == CpCommType::A2AP2P && hcp.size() == 2 ? hcp[0] : 1;
    if (t.rank != last_rank || t.layer != last_layer || static_cast<int>(t.pass) != last_pass) {
      // HyperParallel's mode replaces cp_comm_type: "hyperparallel hybrid u=8".
      const std::string kind = s.hyperparallel_cp() ? std::string("hyperparallel ") + to_string(s.hyperparallel.mode(s.cp())) +
                                                           " u=" + std::to_string(s.hyperparallel.ulysses(s.cp()))
                                                     : std::string(to_string(type));
      os << "\nrank " << t.rank << "  layer " << t.layer << " (" << kind << ")  " << to_string(t.pass) << '\n';
      last_rank = t.rank;
      last_layer = t.layer;
      last_pass = static_cast<int>(t.pass);
    }
    os << "  ";
    if (t.step >= 0) os << "step " << t.step << "  ";
    os << g.label(t) << "  [" << to_string(t.stream) << "]";
    if (t.attention != kNone) {
      const AttentionShape& a = g.attention_of(t);
      os << "  " << section_text(a.section) << "; q " << a.q_len << " x kv " << a.kv_len << ", heads " << a.heads
         << "/" << a.kv_heads;
      if (a.kv_source >= 0 && (type == CpCommType::P2P || type == CpCommType::A2AP2P))
        os << "; KV of ring rank " << a.kv_source << " = " << ring_chunks(a.kv_source, A, cp);
      os << "; " << sci(t.flops) << " FLOP";
    } else if (t.comm != kNone) {
      const auto peers = task_peers(g, t);
      if (t.kind == TaskKind::SendRecv && peers.size() >= 2)
        os << "  send " << mib(t.bytes) << " to rank " << peers[0] << ", receive from rank " << peers[1];
      else {
        os << "  " << mib(t.bytes) << " sent, with ranks";
        for (int p : peers) os << ' ' << p;
      }
    } else {
      os << "  " << mib(t.bytes) << " HBM";
    }
    os << '\n';
  }
}

}  // namespace hcpsim
