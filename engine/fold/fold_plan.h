#pragma once
// Folding: a layer graph whose replicas are identical and share no link is simulated for one
// replica and reported for all of them.
//
// During one layer, a rank only talks to the ranks of its TP x CP group (TP collectives, CP rings,
// all-to-alls; data-parallel and pipeline transfers are composed afterwards by engine/step). The
// links a rank's traffic can cross are its own GPU's NVSwitch port and its node's NICs and fabric
// uplink: the fabric core has no shared link (docs/metrics.md "Routes", sim/platform.cpp). So two
// TP x CP groups can disturb each other only when they have ranks on a common node. A fold unit is
// the smallest set of whole nodes closed under that relation: the groups on its nodes, the nodes of
// those groups, and so on. Units never share a link, with or without contention; when they are also
// laid out alike (same TP, CP, hierarchical and HyperParallel groups at the same offsets, same GPU
// slots, so the same NICs), each behaves exactly like the first, which is simulated alone.
#include <string>

#include "engine/scenario/scenario.h"

namespace hcpsim {

struct FoldPlan {
  bool enabled = false;       // simulation.fold is auto (the user's option; the caller may still forbid folding)
  bool folded = false;        // true: `simulated` (one unit) stands for every unit of the job
  Scenario simulated;         // the scenario to build and run: one unit, or the whole job
  int represented_ranks = 0;  // GPUs of the whole job
  int simulated_ranks = 0;    // GPUs in `simulated`
  int replicas = 1;           // represented_ranks / simulated_ranks (1 when not folded)
  int unit_nodes = 0;         // nodes of one unit (when folded)
  int groups_per_unit = 0;    // TP x CP groups of one unit
  // Why the job was not folded, or what the unit holds when groups share links inside it; empty
  // when there is nothing to say (folded into one group per unit, or a single unit by size).
  std::string note;
  bool links_shared = false;  // two TP x CP groups cross a common NIC/uplink (inter-node traffic)
  // When folding was not allowed for this run: the GPUs of one unit had it been (0: it would not fold).
  int unit_ranks_if_allowed = 0;

  // Rank of the simulated graph whose times a rank of the job has (folded: rank mod unit size).
  int simulated_rank_of(int rank) const { return folded ? rank % simulated_ranks : rank; }
  // Replica (unit index) a rank of the job belongs to; 0 when not folded.
  int replica_of(int rank) const { return folded ? rank / simulated_ranks : 0; }
};

// Decides how `full` is simulated. simulation.fold: off, or `allow` false, keeps every rank, with the
// reason in `note` (for `allow` false: `unfold_reason`, and only when the job would have folded).
// Never throws for a scenario that validate() accepts: a job that cannot be folded exactly is
// simulated whole.
FoldPlan plan_fold(const Scenario& full, bool allow = true, const std::string& unfold_reason = {});

}  // namespace hcpsim
