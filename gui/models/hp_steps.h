#pragma once
// HyperParallel step model: the steps of one CP group's schedule read from the engine's own task
// graph (one layer, forward then backward), for the step view of `hyperparallel:` scenarios. Each
// step is one task per member rank (the k-th task with the same label, stream and pass on each rank):
// the Ulysses all-to-alls on the hp_ulysses groups, the K/V all-gathers and dK/dV reduce-scatters on
// the hp_colossal groups, load balance's head-tail point-to-point exchanges, the projections of
// AsyncContextParallel, DSA's indexer and sparse attention, and the copies between them. Nothing is
// re-derived: groups, messages and bytes are the graph's CommOps, overlap is the graph's dependencies.
#include <string>
#include <vector>

#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"

namespace hcpsim {
struct Scenario;   // hp_steps.cpp reads it; users only pass it on
}

namespace hcpsim::gui {

// One message of a step, between two members of the shown CP group (CP indices).
struct HpMessage {
  int from = 0;
  int to = 0;
  double bytes = 0;
};

struct HpStep {
  std::string label;                    // the graph's task label: "a2a_q", "all_gather_k", "attn", ...
  TaskKind kind = TaskKind::Copy;
  Stream stream = Stream::Main;
  Pass pass = Pass::Forward;
  bool communication = false;
  GroupKind group = GroupKind::CP;      // process group of a communication step
  std::vector<std::vector<int>> groups; // member CP indices of each collective / exchange of this step
  std::vector<HpMessage> messages;      // who sends what to whom (collectives: every ordered pair)
  double bytes_per_rank = 0;            // communication: bytes the first member sends
  double flops = 0;                     // compute: the largest FLOPs of any member
  std::vector<TaskId> tasks;            // by CP index; kNone where that member has no such task
  // Main-stream compute steps that may run while this communication is in flight (neither before it
  // nor after it in the dependency graph): AsyncContextParallel's projections.
  std::vector<std::string> overlaps;
};

class HpStepModel {
 public:
  // Builds the graph of one layer (forward + backward; AsyncContextParallel's projections included).
  // Throws std::invalid_argument when the scenario has no hyperparallel: section or cp < 2.
  explicit HpStepModel(const Scenario& s);

  const TaskGraph& graph() const { return graph_; }
  const RankLayout& layout() const { return layout_; }
  const std::vector<int>& cp_ranks() const { return cp_ranks_; }   // the shown CP group (global ranks)
  int cp() const { return static_cast<int>(cp_ranks_.size()); }
  int ulysses() const { return layout_.hp_ulysses(); }
  int colossal() const { return layout_.hp_colossal(); }
  // Position of CP index i in HyperParallel's (co, ds) mesh: Colossal row and Ulysses column.
  int co_index(int cp_index) const;
  int ds_index(int cp_index) const;
  const std::vector<HpStep>& steps() const { return steps_; }
  const HpStep& step(int i) const { return steps_.at(static_cast<std::size_t>(i)); }
  int step_count() const { return static_cast<int>(steps_.size()); }
  int forward_steps() const;   // steps_[0 .. forward_steps()) are forward
  // "pure Ulysses", "pure Colossal", "hybrid u=2 x co=4", plus style and options.
  const std::string& title() const { return title_; }
  // The attention shape of a member at an attention step (nullptr for other steps or no task).
  const AttentionShape* attention(int step, int cp_index) const;

 private:
  void collect_steps();
  void collect_overlaps();
  RankLayout layout_;
  TaskGraph graph_;
  std::vector<int> cp_ranks_;
  std::vector<HpStep> steps_;
  std::string title_;
};

}  // namespace hcpsim::gui
