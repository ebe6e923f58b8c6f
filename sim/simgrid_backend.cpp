#include "sim/simgrid_backend.h"

#include <chrono>
#include <cstdio>
#include <memory>

#include <unistd.h>

#include "sim/backend_costs.h"
#include "sim/simulate.h"

namespace hcpsim::sim {

namespace {

class SimgridBackend : public Backend {
 public:
  std::string name() const override { return "simgrid"; }
  BackendCapabilities capabilities() const override { return {.predicts_time = true, .models_contention = true, .computes_values = false}; }

  void run(const TaskGraph& g, const RunContext& ctx, TraceSink& sink) override {
    const PlatformSpec spec = make_platform_spec(ctx.scenario.cluster);
    const auto t0 = std::chrono::steady_clock::now();
    bool printed = false;
    const bool tty = ::isatty(STDERR_FILENO) != 0;
    double last_line_s = 0;
    ProgressFn progress = ctx.progress;
    if (!progress) {
      // After 2 s of wall time: one updating line on a terminal, else a line every 5 s.
      progress = [&](std::size_t done, std::size_t total, double sim_s) {
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (wall < 2.0 || (!tty && wall - last_line_s < 5.0)) return;
        last_line_s = wall;
        std::fprintf(stderr, "%ssimgrid: %zu/%zu tasks, simulated %.6f s, %.0f tasks/s%s", tty ? "\r" : "", done,
                     total, sim_s, static_cast<double>(done) / wall, tty ? "   " : "\n");
        printed = tty;
      };
    }
    simulate_in_child(g, backend_plan_costs(ctx, g), spec,
                      [&](TaskId t, double s, double e) { sink.record_task(g, g.task(t), s, e); }, progress);
    if (printed) std::fprintf(stderr, "\n");
  }
};

}  // namespace

void register_simgrid_backend(BackendRegistry& r) {
  r.add("simgrid", "SimGrid 3.32 network model: shared links, NIC/fabric contention, faults (one child process per run)",
        [] { return std::make_unique<SimgridBackend>(); });
}

}  // namespace hcpsim::sim
