#pragma once
// Whole-layer operations around CP attention (QKV/output GEMMs, MLP, TP collectives); implemented
// by the "prediction" area in layer_ops.cpp. build_task_graph calls these when
// GraphOptions::whole_layer is set: `pre` before the attention of a layer/pass and `post` after it,
// in that pass's execution order.
#include <vector>

#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {

// Adds the whole-layer ops of one rank's layer/pass before/after attention; returns the new
// frontier task per rank (kNone = none). `frontier` is indexed by rank (the main stream's last
// task); `waits[rank]`, when present, lists further tasks the rank's first op waits for (stream
// waits pending on the main stream, e.g. the join of the cp stream at the end of attention).
std::vector<TaskId> add_pre_attention_ops(TaskGraph&, const Scenario&, const RankLayout&, int layer, Pass,
                                          const std::vector<TaskId>& frontier,
                                          const std::vector<std::vector<TaskId>>& waits = {});
std::vector<TaskId> add_post_attention_ops(TaskGraph&, const Scenario&, const RankLayout&, int layer, Pass,
                                           const std::vector<TaskId>& frontier,
                                           const std::vector<std::vector<TaskId>>& waits = {});

}  // namespace hcpsim
