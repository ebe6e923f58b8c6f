#pragma once
// The teaching text form of a TaskGraph (`hcpsim graph --format text`): per rank and ring step the
// K/V chunks held, the causal section computed, what is sent to whom, bytes and FLOPs.
#include <iosfwd>
#include <string>

#include "engine/graph/graph_export.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {

// Needs the scenario for each layer's schedule and the chunk ids (dual-chunk layout, hierarchical split).
void write_graph_text(const TaskGraph& g, const Scenario& s, const GraphFilter& f, std::ostream& os);

// "C2 C3 | C12 C13": global chunks (2*cp chunks of S/(2cp)) held by ring rank j with a2a size A.
std::string ring_chunks(int j, int A, int cp);

}  // namespace hcpsim
