#include "engine/step/step_layer_template.h"

#include <stdexcept>
#include <utility>

namespace hcpsim::step {

LayerTemplate::LayerTemplate(const Scenario& s, const RankLayout& layout, const GraphOptions& o)
    : g_(build_task_graph(s, layout, o)), stages_(layout.pp()) {
  parts_.resize(static_cast<std::size_t>(2 * stages_));
  std::vector<std::uint32_t> pos(g_.size());
  std::vector<int> key(g_.size());
  for (TaskId id = 0; id < g_.size(); ++id) {
    const Task& t = g_.task(id);
    key[id] = part_index(t.pass, layout.coord(t.rank).pp);
    PassPart& p = parts_[static_cast<std::size_t>(key[id])];
    pos[id] = static_cast<std::uint32_t>(p.tasks.size());
    p.tasks.push_back(id);
  }
  for (PassPart& p : parts_) {
    p.preds.resize(p.tasks.size());
    p.is_exit.assign(p.tasks.size(), 1);
  }
  for (TaskId id = 0; id < g_.size(); ++id) {
    PassPart& p = parts_[static_cast<std::size_t>(key[id])];
    for (TaskId d : g_.deps(id)) {
      if (key[d] != key[id]) continue;   // forward -> backward edges: stream order replaces them
      p.preds[pos[id]].push_back(pos[d]);
      p.is_exit[pos[d]] = 0;
    }
  }
  for (std::uint32_t c = 0; c < g_.comms().size(); ++c) {
    const CommOp& op = g_.comms()[c];
    if (op.tasks.empty()) continue;
    const int k = key[op.tasks.front()];
    for (TaskId t : op.tasks)
      if (key[t] != k) throw std::logic_error("build_step_graph: a layer comm op spans passes or pipeline stages");
    parts_[static_cast<std::size_t>(k)].comms.push_back(c);
  }
  pos_ = std::move(pos);
}

}  // namespace hcpsim::step
