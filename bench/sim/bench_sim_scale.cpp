// Speed of the simgrid backend on the a2a+p2p forward pattern: prints tasks, flows, wall time of
// the simulation (fork + platform + run + streaming events back), microseconds per task and the
// peak RSS of the parent and of the simulating child.
//   bench_sim_scale [--a2a 8] [--ring 128] [--layers 4] [--gpus-per-node 8] [--nics 8]
// Exit status 1 when --max-wall-s or --max-rss-mb is given and exceeded.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/core/process_memory.h"
#include "sim/platform_spec.h"
#include "sim/simulate.h"
#include "synthetic_hcp_graph.h"

int main(int argc, char** argv) {
  hcpsim::bench::HcpShape shape;
  int gpus_per_node = 8, nics = 8;
  double max_wall_s = 0, max_rss_mb = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const double v = std::atof(argv[i + 1]);
    if (k == "--a2a") shape.a2a = static_cast<int>(v);
    else if (k == "--ring") shape.ring = static_cast<int>(v);
    else if (k == "--layers") shape.layers = static_cast<int>(v);
    else if (k == "--gpus-per-node") gpus_per_node = static_cast<int>(v);
    else if (k == "--nics") nics = static_cast<int>(v);
    else if (k == "--max-wall-s") max_wall_s = v;
    else if (k == "--max-rss-mb") max_rss_mb = v;
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  const int world = shape.a2a * shape.ring;
  if (world % gpus_per_node != 0) {
    std::fprintf(stderr, "world size %d is not a multiple of --gpus-per-node %d\n", world, gpus_per_node);
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const hcpsim::TaskGraph g = hcpsim::bench::make_synthetic_hcp_forward(shape);
  const auto t1 = std::chrono::steady_clock::now();
  const double parent_cpu0 = hcpsim::cpu_time_s(hcpsim::Usage::Self);

  hcpsim::ClusterConfig c;
  c.nodes = world / gpus_per_node;
  c.gpus_per_node = gpus_per_node;
  c.nics_per_node = nics;
  hcpsim::sim::PlanCosts costs;
  costs.compute_s = [](const hcpsim::Task& t) { return t.flops / 1e12; };
  costs.link_efficiency = [](hcpsim::TaskKind, double, bool inter) { return inter ? 0.94 : 0.82; };
  costs.gpus_per_node = gpus_per_node;
  std::size_t events = 0;
  const auto r = hcpsim::sim::simulate_in_child(
      g, costs, hcpsim::sim::make_platform_spec(c), [&](hcpsim::TaskId, double, double) { ++events; },
      [](std::size_t done, std::size_t total, double sim_s) {
        std::fprintf(stderr, "  progress %zu/%zu tasks, simulated %.6f s\n", done, total, sim_s);
      });
  const auto t2 = std::chrono::steady_clock::now();
  const double build_s = std::chrono::duration<double>(t1 - t0).count();
  const double sim_s = std::chrono::duration<double>(t2 - t1).count();
  const double child_cpu = hcpsim::cpu_time_s(hcpsim::Usage::Children), parent_cpu = hcpsim::cpu_time_s(hcpsim::Usage::Self) - parent_cpu0;
  const double parent_mb = hcpsim::peak_rss_mib(hcpsim::Usage::Self), child_mb = hcpsim::peak_rss_mib(hcpsim::Usage::Children);
  std::printf("ranks=%d a2a=%d ring=%d layers=%d tasks=%zu flows=%zu events=%zu makespan_s=%.6f\n", world, shape.a2a,
              shape.ring, shape.layers, g.size(), r.flows, events, r.makespan_s);
  std::printf("graph_build_wall_s=%.3f simulate_wall_s=%.3f simulate_cpu_s=%.3f (child %.3f + parent %.3f) "
              "cpu_us_per_task=%.2f parent_peak_rss_mb=%.1f child_peak_rss_mb=%.1f\n",
              build_s, sim_s, child_cpu + parent_cpu, child_cpu, parent_cpu,
              1e6 * (child_cpu + parent_cpu) / static_cast<double>(g.size()), parent_mb, child_mb);
  bool ok = true;
  if (max_wall_s > 0 && sim_s > max_wall_s) {
    std::printf("FAIL: simulate wall %.3f s > %.3f s\n", sim_s, max_wall_s);
    ok = false;
  }
  if (max_rss_mb > 0 && (parent_mb > max_rss_mb || child_mb > max_rss_mb)) {
    std::printf("FAIL: peak RSS above %.0f MB\n", max_rss_mb);
    ok = false;
  }
  return ok ? 0 : 1;
}
