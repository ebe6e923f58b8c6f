// PLACEHOLDER (added by the "engine" helper only so that build_task_graph links): pass-through
// hooks that add no tasks. Owned by the "prediction" helper, who replaces this file with the real
// GEMM / TP-collective ops.
#include "engine/schedule/layer_ops.h"

namespace hcpsim {

std::vector<TaskId> add_pre_attention_ops(TaskGraph&, const Scenario&, const RankLayout&, int, Pass,
                                          const std::vector<TaskId>& frontier) {
  return frontier;
}

std::vector<TaskId> add_post_attention_ops(TaskGraph&, const Scenario&, const RankLayout&, int, Pass,
                                           const std::vector<TaskId>& frontier) {
  return frontier;
}

}  // namespace hcpsim
