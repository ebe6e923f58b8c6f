#include "engine/validate/feasibility.h"

#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/cost/calibration.h"
#include "engine/fold/fold_plan.h"
#include "engine/schedule/schedule_descriptor.h"
#include "engine/validate/field_ranges.h"

namespace hcpsim {

namespace {

void check_faults(const Scenario& s, Diagnostics& d) {
  const auto& faults = s.cluster.faults;
  std::map<int, std::size_t> rank_fault;                      // rank -> first fault index
  std::map<std::pair<int, int>, std::size_t> nic_fault;       // (node, nic) -> first fault index
  std::map<int, int> failed_per_node;
  for (std::size_t i = 0; i < faults.size(); ++i) {
    const Fault& f = faults[i];
    const std::string p = "cluster.faults[" + std::to_string(i) + "]";
    if (f.kind == Fault::Kind::Straggler) {
      if (auto [it, fresh] = rank_fault.emplace(f.rank, i); !fresh)
        add_scenario_diagnostic(d, s, Severity::Error, p + ".rank",
                                "rank " + std::to_string(f.rank) + " already has a fault (cluster.faults[" +
                                    std::to_string(it->second) + "]); give each rank one straggler entry",
                                {"combine the slowdowns into one value (they would multiply)"});
      continue;
    }
    if (auto [it, fresh] = nic_fault.emplace(std::pair{f.node, f.nic}, i); !fresh) {
      add_scenario_diagnostic(d, s, Severity::Error, p + ".nic",
                              "NIC " + std::to_string(f.nic) + " of node " + std::to_string(f.node) +
                                  " already has a fault (cluster.faults[" + std::to_string(it->second) +
                                  "]); give each NIC one entry",
                              {"one bandwidth_factor per NIC, or failed: true"});
      continue;
    }
    if (f.kind == Fault::Kind::FailedNic) ++failed_per_node[f.node];
  }
  if (s.cluster.nodes < 2) return;   // one node never needs a NIC
  for (const auto& [node, n] : failed_per_node) {
    if (n < s.cluster.nics_per_node) continue;
    // Point at the last failed NIC of that node.
    std::size_t last = 0;
    for (std::size_t i = 0; i < faults.size(); ++i)
      if (faults[i].kind == Fault::Kind::FailedNic && faults[i].node == node) last = i;
    add_scenario_diagnostic(d, s, Severity::Error, "cluster.faults[" + std::to_string(last) + "]",
                            "every NIC of node " + std::to_string(node) + " has failed (" + std::to_string(n) +
                                " of " + std::to_string(s.cluster.nics_per_node) +
                                "), so its GPUs cannot reach the other nodes",
                            {"leave at least one NIC of each node working, or degrade it with bandwidth_factor"});
  }
}

// Steps per rank and pass of the layer's schedule (each step is a few tasks).
double ring_steps(const Scenario& s, CpCommType t) {
  if (s.cp() <= 1) return 1;
  return schedule::schedule_of(t).steps_per_rank(s);
}

std::string graph_too_large(double tasks) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "the task graph would have about %.3g tasks, more than hcpsim's limit of %.3g", tasks,
                kMaxGraphTasks);
  return buf;
}

}  // namespace

double estimated_graph_tasks(const Scenario& s) {
  const double passes = (s.simulation.forward ? 1.0 : 0.0) + (s.simulation.backward ? 1.0 : 0.0);
  double per_rank = 0;
  for (int l = 0; l < s.simulation.layers; ++l)
    per_rank += 8.0 + 6.0 * ring_steps(s, s.comm_type_for_layer(l)) + (s.model.ffn_hidden_size > 0 ? 30.0 : 0.0);
  return static_cast<double>(s.world_size()) * passes * per_rank;
}

void require_buildable_graph(const Scenario& s, const std::string& why_whole) {
  const double tasks = estimated_graph_tasks(s);
  if (tasks > kMaxGraphTasks)
    throw std::invalid_argument(graph_too_large(tasks) + " with all " + std::to_string(s.world_size()) + " GPUs: " +
                                why_whole);
}

std::optional<FoldMemo::Entry> FoldMemo::find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

void FoldMemo::store(const std::string& key, Entry e) {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.emplace(key, std::move(e));
}

namespace {

// What plan_fold reads: the fold option, the faults, and the layout's parameters
// (RankLayout::from_scenario). Empty when there are faults (they name ranks: no sharing).
std::string fold_key(const Scenario& s) {
  if (!s.cluster.faults.empty()) return {};
  std::string k = std::to_string(static_cast<int>(s.simulation.fold)) + "|" + std::to_string(s.world_size()) + "|" +
                  std::to_string(s.cluster.gpus_per_node) + "|" + std::to_string(s.tp()) + "|" + std::to_string(s.cp()) +
                  "|" + std::to_string(s.pp()) + "|" + s.dist.order + "|";
  if (s.hyperparallel_cp()) {
    k += "hp" + std::to_string(s.hyperparallel.ulysses(s.cp()));
    for (const std::string& n : s.hyperparallel.mesh_dim_names) k += "," + n;
  } else {
    for (int x : s.model.hierarchical_context_parallel_sizes) k += std::to_string(x) + ",";
  }
  return k;
}

FoldMemo::Entry fold_of(const Scenario& s, FoldMemo* memo) {
  const std::string key = memo != nullptr ? fold_key(s) : std::string();
  if (!key.empty())
    if (auto e = memo->find(key)) return *e;
  const FoldPlan fold = plan_fold(s);
  FoldMemo::Entry e{fold.folded, fold.simulated_ranks, fold.note};
  if (!key.empty()) memo->store(key, e);
  return e;
}

}  // namespace

Diagnostics check_feasibility(const Scenario& s, FoldMemo* memo) {
  Diagnostics d;
  check_faults(s, d);
  if (s.cp() == 1 && s.model.seq_length % 2 != 0)
    add_scenario_diagnostic(
        d, s, Severity::Error, "model.seq_length",
        "seq_length " + std::to_string(s.model.seq_length) +
            " is odd; hcpsim's schedules split each sequence into two halves (the load-balanced causal "
            "layout), so it must be even, also with context_parallel_size = 1",
        {"nearest valid: " + std::to_string(s.model.seq_length - 1) + " or " + std::to_string(s.model.seq_length + 1)});
  if (!s.cluster.calibration_path.empty()) {
    try {   // the cost model loads it; a file it cannot use is refused here, at the field
      (void)load_calibration_file(s.cluster.calibration_path);
    } catch (const std::exception& e) {
      add_scenario_diagnostic(d, s, Severity::Error, "cluster.calibration", e.what(),
                              {"`hcpsim calibrate` writes calibration files; relative paths are relative to the "
                               "scenario file"});
    }
  }
  const double whole = estimated_graph_tasks(s);
  if (whole > kMaxGraphTasks) {
    // A job of identical replicas builds only one fold unit's graph (planned only here, on the rare
    // large job: it lays out every rank).
    // The folded graph is one unit: the same tasks per rank on fewer ranks.
    const FoldMemo::Entry fold = fold_of(s, memo);
    const double built = fold.folded ? whole * fold.simulated_ranks / s.world_size() : whole;
    if (built > kMaxGraphTasks) {
      std::string msg = graph_too_large(built);
      if (fold.folded) msg += " (one fold unit of " + std::to_string(fold.simulated_ranks) + " GPUs)";
      else if (!fold.note.empty()) msg += "; " + fold.note;
      add_scenario_diagnostic(d, s, Severity::Error, "simulation.layers", msg,
                              {"simulate fewer layers (simulation.layers), fewer GPUs, or a smaller ring "
                               "(p2p with a large cp has cp steps per layer)"});
    }
  }
  return d;
}

}  // namespace hcpsim
