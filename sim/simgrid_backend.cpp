#include "sim/simgrid_backend.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <vector>

#include <unistd.h>

#include "engine/analytic/collective_time.h"
#include "engine/cost/route.h"
#include "engine/cost/task_cost_memo.h"
#include "sim/simulate.h"

namespace hcpsim::sim {

namespace {

PlanCosts costs_from(const RunContext& ctx, const TaskGraph& g) {
  PlanCosts c;
  const CostModel& cost = ctx.cost;
  // One memo per run, shared by the copies of these functions (the child process runs them alone).
  auto memo = std::make_shared<TaskCostMemo>(cost, g);
  c.compute_s = [memo](const Task& t) { return memo->compute_seconds(t); };
  c.link_efficiency = [&cost](TaskKind op, double bytes, bool inter) {
    return cost.link_efficiency(op, bytes, inter ? LinkClass::InterNode : LinkClass::IntraNode);
  };
  c.comm_load = [memo](const Task& t) { return memo->comm_compute_load(t); };
  c.comm_overhead_s = [&cost](const Task& t) { return cost.comm_overhead_s(t); };
  c.gpus_per_node = ctx.scenario.cluster.gpus_per_node;
  auto routes = std::make_shared<const RouteModel>(ctx.scenario, cost);
  if (cost.terms().nccl_p2p_channels) {
    // The analytic backend's send/recv efficiency on the flow's route, relative to its one SimGrid
    // path (the rail speed-up is applied on top).
    // The op's communicator is the same for each of its flows: computed once per op (p2p_comm walks
    // the op's members). The executor lowers one op at a time, asking for all of its flows in a row,
    // so remembering the last op is enough (a map of every op grew to one entry per op of the graph).
    struct LastComm {
      const CommOp* op = nullptr;
      NcclP2pComm comm;
    };
    auto last = std::make_shared<LastComm>();
    c.p2p_efficiency = [routes, last](const CommOp& op, std::int32_t src, std::int32_t dst, double bytes) {
      const Route r = routes->route(src, dst);
      if (last->op != &op) {
        last->comm = routes->p2p_comm(op);
        last->op = &op;
      }
      return routes->cost().p2p_efficiency(bytes, r.link_class, r.bottleneck_Bps, last->comm);
    };
  }
  if (cost.terms().nccl_ring_latency) {
    // The analytic backend's pipeline of the ring collective (same hops, efficiencies and latency).
    c.ring_pipeline = [routes](const CommOp& op) {
      const RingPipeline p = ring_collective_pipeline(op, *routes);
      return PlanCosts::RingPipelineCost{p.hop_efficiency, p.choice.latency_s};
    };
  }
  if (cost.terms().nccl_rails) {
    // The rails of RouteModel, as the analytic backend applies them, as speed-ups of the flows' one
    // SimGrid path.
    auto speedup = [](const Route& r) {
      return !r.self && r.link_class == LinkClass::InterNode && r.one_rail_Bps > 0 ? std::max(1.0, r.bottleneck_Bps / r.one_rail_Bps)
                                                                                    : 1.0;
    };
    c.ring_rail_speedups = [routes, speedup](const CommOp& op) {
      std::vector<double> out;
      for (const Route& r : ring_collective_hops(op, *routes)) out.push_back(speedup(r));
      return out;
    };
    c.p2p_rail_speedup = [routes, speedup](std::int32_t src, std::int32_t dst) { return speedup(routes->route(src, dst)); };
  }
  return c;
}

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
    simulate_in_child(g, costs_from(ctx, g), spec,
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
