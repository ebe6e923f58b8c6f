#pragma once
// A stand-in for the a2a+p2p forward schedule, used by the speed benchmark until (and besides) the
// engine's builders: per layer, an intra-group all-to-all, a ring of P steps (attention kernel per
// step, one SendRecv op per ring and step carrying KV to the next ring member), and the all-to-all
// back. Rank placement follows RankLayout for hierarchical sizes [A, P] with tp = 1: a2a groups are
// contiguous ranks, rings stride by A.
#include "engine/graph/task_graph.h"

namespace hcpsim::bench {

struct HcpShape {
  int a2a = 8;            // A
  int ring = 128;         // P
  int layers = 4;
  double attn_s = 50e-6;  // per ring step, per rank
  double kv_bytes = 4e6;  // KV block sent per ring step
  double a2a_bytes = 16e6;  // tensor per rank for each all-to-all
};

// Builds the graph; world size = a2a * ring. Attention tasks carry their duration in `flops` as
// picoseconds (flops = seconds * 1e12), which the benchmark's cost function reads back.
TaskGraph make_synthetic_hcp_forward(const HcpShape& s);

}  // namespace hcpsim::bench
