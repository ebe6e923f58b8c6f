#include "sim/simulate.h"

#include <stdexcept>
#include <string>

#include "sim/child_channel.h"
#include "sim/jit_executor.h"

namespace hcpsim::sim {

SimRunResult simulate_in_child(const TaskGraph& g, const PlanCosts& costs, const PlatformSpec& spec,
                               const std::function<void(TaskId, double, double)>& on_event,
                               const ProgressFn& progress, ComputeMode mode) {
  for (const Task& t : g.tasks())
    if (t.rank < 0 || t.rank >= spec.world_size())
      throw std::invalid_argument("task " + std::to_string(g.id_of(t)) + " (" + g.display_name(t) + ") runs on rank " +
                                  std::to_string(t.rank) + " but the cluster has " + std::to_string(spec.world_size()) +
                                  " GPUs (valid ranks 0.." + std::to_string(spec.world_size() - 1) + ")");
  if (!costs.compute_s || !costs.link_efficiency) throw std::invalid_argument("PlanCosts: both cost functions are required");
  if (costs.gpus_per_node < 1) throw std::invalid_argument("PlanCosts: gpus_per_node must be >= 1");
  check_comm_ops(g, spec.world_size());
  (void)g.adjacency();   // built here, once, rather than in the child
  ChildHandlers h;
  std::size_t events = 0;
  h.on_event = [&](std::uint32_t t, double start_s, double end_s) {
    if (t >= g.size()) throw std::runtime_error("simgrid child reported an unknown task id " + std::to_string(t));
    ++events;
    if (on_event) on_event(t, start_s, end_s);
  };
  if (progress) h.on_progress = [&](std::uint64_t done, std::uint64_t total, double sim_s) { progress(done, total, sim_s); };
  const ChildOutcome out = run_in_child([&](RecordWriter& w) { execute_graph(g, costs, spec, w, mode); }, h);
  if (!out.error.empty()) {
    std::string msg = out.error;
    if (!out.finished && !out.child_stderr_tail.empty()) msg += "\nlast output of the simgrid child:\n" + out.child_stderr_tail;
    if (out.invalid_input) throw std::invalid_argument(msg);
    throw std::runtime_error(msg);
  }
  if (!out.finished || out.completed != g.size() || events != g.size())
    throw std::runtime_error("simgrid: lost completions: " + std::to_string(events) + " task events for " +
                             std::to_string(g.size()) + " tasks");
  SimRunResult r;
  r.makespan_s = out.makespan_s;
  r.completed = out.completed;
  r.flows = out.flows;
  return r;
}

}  // namespace hcpsim::sim
