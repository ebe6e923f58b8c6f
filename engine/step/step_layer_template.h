#pragma once
// LayerTemplate: the layer graph of one comm type on the whole cluster (every pipeline stage runs
// the same layer at once in it), split by (pass, stage) into the pieces build_step_graph copies.
#include <cstdint>
#include <vector>

#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"
#include "engine/schedule/build.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::step {

// One pass of one layer graph restricted to the ranks of one pipeline stage, with the edges inside
// it; indices are positions in `tasks`.
struct PassPart {
  std::vector<TaskId> tasks;                       // template ids, ascending
  std::vector<std::vector<std::uint32_t>> preds;   // predecessors inside the part
  std::vector<char> is_exit;                       // no successor inside the part
  std::vector<std::uint32_t> comms;                // template comm ops whose members are all in the part
};

class LayerTemplate {
 public:
  LayerTemplate(const Scenario& s, const RankLayout& layout, const GraphOptions& o);
  const TaskGraph& graph() const { return g_; }
  const PassPart& part(Pass pass, int stage) const { return parts_[static_cast<std::size_t>(part_index(pass, stage))]; }
  std::uint32_t position(TaskId id) const { return pos_[id]; }

 private:
  int part_index(Pass pass, int stage) const { return (pass == Pass::Forward ? 0 : stages_) + stage; }
  TaskGraph g_;
  int stages_;
  std::vector<PassPart> parts_;
  std::vector<std::uint32_t> pos_;
};

}  // namespace hcpsim::step
