#pragma once
// Builds the TaskGraph of a scenario: for every simulated layer and pass, the CP attention schedule
// of that layer's cp_comm_type (one builder per file in this folder), optionally wrapped by the
// whole-layer operations (layer_ops.h) when the scenario has ffn_hidden_size.
#include <vector>

#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {

struct GraphOptions {
  bool forward = true;
  bool backward = true;
  int layers = 1;                 // layers built explicitly
  bool whole_layer = false;       // add GEMMs and TP collectives around attention (needs ffn_hidden_size)
  // false: whole_layer's operations without the CP attention between them (the recomputation of
  // recompute_granularity non_attention, which keeps the attention outputs).
  bool attention = true;
  bool with_payloads = false;     // fill TaskPayload for the reference executor
  // Testing only: reproduce the silent-disable pitfall (docs/schedules.md): each rank attends to its own chunk.
  bool silent_disable_pitfall = false;
  // HyperParallel AsyncContextParallel: build its Q/K/V projection GEMMs (with payloads that produce
  // the projected Q, K, V) even without whole_layer, so the reference executor checks that every
  // early collective reads its projection's output. whole_layer implies it.
  bool hp_projections = false;
};

// Options from the scenario's `simulation:` section (passes, layers; whole_layer when ffn is given).
GraphOptions graph_options_from(const Scenario& s);

TaskGraph build_task_graph(const Scenario& s, const RankLayout& layout, const GraphOptions& options);

// The number of tasks build_task_graph will create, when the schedules involved give it in closed
// form (attention only, comm types p2p, a2a and a2a+p2p), else 0. The builder reserves that much
// before the first layer, so that a million-task graph is not grown by doubling (each doubling
// copies the tasks, and the allocator keeps the memory of the smaller copies).
std::size_t expected_task_count(const Scenario& s, const RankLayout& layout, const GraphOptions& options);

}  // namespace hcpsim
