#pragma once
// Writers for a TaskGraph: JSON (the `hcpsim graph --format json` contract of docs/architecture.md "Contracts"),
// Graphviz DOT (one cluster per rank) and a teaching text form (per rank and ring step: KV chunks
// held, causal section computed, what is sent to whom, bytes and FLOPs).
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "engine/graph/task_graph.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {

struct GraphFilter {
  int rank = -1;                 // -1: all ranks
  int layer = -1;                // -1: all layers
  std::optional<Pass> pass;      // empty: both passes
  bool accepts(const Task& t) const {
    return (rank < 0 || t.rank == rank) && (layer < 0 || t.layer == layer) && (!pass || t.pass == *pass);
  }
};

// Peer ranks of a task: the other members of its CommOp (SendRecv: destination then source).
std::vector<int> task_peers(const TaskGraph& g, const Task& t);

// {"tasks":[{"id","rank","stream","kind","name","layer","pass","step","flops","bytes","peers","deps"}]}
void write_graph_json(const TaskGraph& g, const GraphFilter& f, std::ostream& os);
// digraph with one subgraph cluster per rank; edges between accepted tasks.
void write_graph_dot(const TaskGraph& g, const GraphFilter& f, std::ostream& os);
// Teaching text form; needs the scenario for chunk ids (dual-chunk layout, hierarchical split).
void write_graph_text(const TaskGraph& g, const Scenario& s, const GraphFilter& f, std::ostream& os);

// "C2 C3 | C12 C13": global chunks (2*cp chunks of S/(2cp)) held by ring rank j with a2a size A.
std::string ring_chunks(int j, int A, int cp);

}  // namespace hcpsim
