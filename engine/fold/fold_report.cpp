#include "engine/fold/fold_report.h"

namespace hcpsim {

void apply_fold(Report& r, const FoldPlan& plan) {
  FoldSummary f;
  f.enabled = plan.enabled;
  f.folded = plan.folded;
  f.simulated_ranks = plan.simulated_ranks;
  f.represented_ranks = plan.represented_ranks;
  f.replicas = plan.replicas;
  f.note = plan.note;
  r.fold = f;
  r.cluster_world_size = plan.represented_ranks;
  if (!plan.folded) return;
  const double k = plan.replicas;
  r.bytes_intra_node *= k;
  r.bytes_inter_node *= k;
  r.compute_busy_s *= k;
  r.comm_busy_s *= k;
}

}  // namespace hcpsim
