#pragma once
// The report of a folded run made the report of the whole job: the fold summary, the job's GPU
// count, and the sums over ranks (bytes per link class, compute and communication busy time)
// multiplied by the number of identical replicas. Times, rates, ratios, the slowest rank and the
// critical path are the unit's, which are the job's: its ranks are ranks 0..S-1 of the job.
#include "engine/fold/fold_plan.h"
#include "engine/report/report.h"

namespace hcpsim {

void apply_fold(Report& r, const FoldPlan& plan);

}  // namespace hcpsim
