#pragma once
// Whole-layer operations around CP attention (QKV/output GEMMs, MLP, TP collectives); implemented
// by the "prediction" area in layer_ops.cpp. build_task_graph calls add_layer_ops when
// GraphOptions::whole_layer is set, once before the attention of a layer/pass and once after it, in
// that pass's execution order.
#include <vector>

#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {

// Which side of a layer's attention: the ops a pass runs before it, or after it.
enum class LayerPart { BeforeAttention, AfterAttention };

// Adds the whole-layer ops of one layer/pass on the given side of its attention; returns the new
// frontier task per rank (kNone = none). `frontier` is indexed by rank (the main stream's last
// task); `waits[rank]`, when present, lists further tasks the rank's first op waits for (stream
// waits pending on the main stream, e.g. the join of the cp stream at the end of attention).
// Throws std::invalid_argument when the model lacks hidden_size/ffn_hidden_size or `frontier` is
// not one entry per rank.
std::vector<TaskId> add_layer_ops(TaskGraph&, const Scenario&, const RankLayout&, int layer, Pass, LayerPart,
                                  const std::vector<TaskId>& frontier,
                                  const std::vector<std::vector<TaskId>>& waits = {});

}  // namespace hcpsim
