#pragma once
// Writers for a TaskGraph: JSON (the `hcpsim graph --format json` contract of docs/architecture.md "Contracts")
// and Graphviz DOT (one cluster per rank). The teaching text form, which needs each layer's schedule,
// is engine/schedule/graph_text.h.
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "engine/graph/task_graph.h"

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
// The tasks `f` accepts, grouped by rank (graph order within a rank).
std::vector<const Task*> accepted_by_rank(const TaskGraph& g, const GraphFilter& f);

}  // namespace hcpsim
