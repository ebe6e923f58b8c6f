#pragma once
// Colours shared by every view: one fixed colour per group kind and task kind, and a categorical
// palette that gives neighbouring group indices clearly different hues.
#include <QColor>

#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"
#include "engine/measured/measured_trace.h"

namespace hcpsim::gui {

// Fixed colour of a group kind (legend colour of TP, CP, DP, PP, ... in the layout view).
QColor group_kind_color(GroupKind k);
// Colour of the n-th group of a kind (n >= 0): a hue walk by the golden angle, never repeating
// within the first 64 indices.
QColor group_index_color(int n);
// Fixed colour of a task kind in the timeline (attention compute warm, communication cool).
QColor task_kind_color(TaskKind k);
// Colour of a kind on the timeline: task_kind_color for the kinds that share a task kind's name;
// memory-bound, optimizer, other communication and unclassified kernels of a profiled run have their own.
QColor kind_color(MeasuredKind k);
// Colour of ring position p (0 <= p < count) in the ring-step view; `count` >= 1.
QColor ring_position_color(int p, int count);
// The neutral background all views paint on (a test checks views draw something else on it).
QColor background_color();

}  // namespace hcpsim::gui
