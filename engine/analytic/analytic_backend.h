#pragma once
// The "analytic" backend: deterministic event-driven list scheduling of a TaskGraph.
//  - a task starts when all its dependencies are done (stream order is already edges);
//  - compute kernels that overlap on one GPU share it (processor sharing: n kernels each run at 1/n);
//  - SendRecv transfers start when both endpoint tasks are ready, collectives when all members are;
//    each costs alpha-beta on its bottleneck link (RouteModel), with no sharing between flows.
// Formulas: docs/metrics.md.
#include <memory>

#include "engine/backend/backend.h"

namespace hcpsim {

class AnalyticBackend : public Backend {
 public:
  std::string name() const override { return "analytic"; }
  BackendCapabilities capabilities() const override;
  // Emits one TraceEvent per task (start = when the task became ready, end = when it finished).
  // Throws std::runtime_error naming stuck tasks when the graph cannot finish.
  void run(const TaskGraph& g, const RunContext& ctx, TraceSink& sink) override;
};

std::unique_ptr<Backend> make_analytic_backend();

}  // namespace hcpsim
