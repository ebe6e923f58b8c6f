#include "engine/fold/fold_report.h"

namespace hcpsim {

void apply_fold(Report& r, const FoldPlan& plan) {
  r.fold = {.enabled = plan.enabled, .folded = plan.folded, .simulated_ranks = plan.simulated_ranks,
            .represented_ranks = plan.represented_ranks, .replicas = plan.replicas, .note = plan.note};
  r.cluster_world_size = plan.represented_ranks;
  if (!plan.folded) return;
  const double k = plan.replicas;
  r.bytes_intra_node *= k;
  r.bytes_inter_node *= k;
  r.compute_busy_s *= k;
  r.comm_busy_s *= k;
}

}  // namespace hcpsim
