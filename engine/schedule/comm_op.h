#pragma once
// A communication op of a schedule, before its members are added (defined in schedule_context.cpp).
#include <cstddef>

#include "engine/graph/task_graph.h"

namespace hcpsim::schedule {

// A communication op of `kind` on group `group_index` of kind `group` (its members and tasks still to
// add); `members` > 0 reserves its lists for them (transfers: send/recv only).
CommOp comm_op(TaskKind kind, GroupKind group, std::size_t group_index, int members = 0);

}  // namespace hcpsim::schedule
