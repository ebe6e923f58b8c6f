// Speed of the simgrid backend on a graph from the real schedule builders: an a2a+p2p forward pass
// of a Llama-like model (32 query heads, 8 KV heads, d=128) on DGX-H100-like nodes.
//   bench_sim_scenario [--a2a 8] [--ring 128] [--layers 4] [--seq 1048576] [--backward 0]
// Prints tasks, wall and CPU seconds of the simulation (child + parent), CPU microseconds per task,
// peak RSS of parent and child. Exit 1 when --max-wall-s / --max-cpu-s / --max-rss-mb is exceeded.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/core/process_memory.h"
#include "engine/backend/backend.h"
#include "engine/layout/rank_layout.h"
#include "engine/schedule/build.h"
#include "engine/schedule/schedule_descriptor.h"
#include "sim/simgrid_backend.h"

namespace {

class CountingSink : public hcpsim::TraceSink {
 public:
  void record(const hcpsim::TraceEvent& e) override {
    ++events;
    if (e.end_s > makespan_s) makespan_s = e.end_s;
  }
  // Only the makespan is kept, so the per-event display name and peers are never built.
  void record_task(const hcpsim::TaskGraph&, const hcpsim::Task&, double, double end_s) override {
    ++events;
    if (end_s > makespan_s) makespan_s = end_s;
  }
  std::size_t events = 0;
  double makespan_s = 0;
};

}  // namespace

int main(int argc, char** argv) {
  int a2a = 8, ring = 128, layers = 4, backward = 0;
  double seq = 1048576, max_wall_s = 0, max_cpu_s = 0, max_rss_mb = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const double v = std::atof(argv[i + 1]);
    if (k == "--a2a") a2a = static_cast<int>(v);
    else if (k == "--ring") ring = static_cast<int>(v);
    else if (k == "--layers") layers = static_cast<int>(v);
    else if (k == "--seq") seq = v;
    else if (k == "--backward") backward = static_cast<int>(v);
    else if (k == "--max-wall-s") max_wall_s = v;
    else if (k == "--max-cpu-s") max_cpu_s = v;
    else if (k == "--max-rss-mb") max_rss_mb = v;
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  const int cp = a2a * ring;
  hcpsim::Scenario s;
  s.name = "bench-a2a+p2p";
  s.cluster.gpus_per_node = 8;
  s.cluster.nics_per_node = 8;
  s.cluster.nodes = (cp + 7) / 8;
  if (cp % 8 != 0) {
    s.cluster.gpus_per_node = cp;
    s.cluster.nics_per_node = cp;
    s.cluster.nodes = 1;
  }
  s.model.num_layers = layers;
  s.model.hidden_size = 4096;
  s.model.num_attention_heads = 32;
  s.model.num_query_groups = 8;
  s.model.seq_length = static_cast<std::int64_t>(seq);
  s.model.context_parallel_size = cp;
  const char* comm_type = a2a > 1 && ring > 1 ? "a2a+p2p" : (a2a > 1 ? "a2a" : "p2p");
  s.model.cp_comm_type = {hcpsim::schedule::schedule_named(comm_type).kind};
  if (a2a > 1 && ring > 1) s.model.hierarchical_context_parallel_sizes = {a2a, ring};
  s.simulation.forward = true;
  s.simulation.backward = backward != 0;
  s.simulation.layers = layers;

  const auto t0 = std::chrono::steady_clock::now();
  const hcpsim::RankLayout layout = hcpsim::RankLayout::from_scenario(s);
  const hcpsim::TaskGraph g = hcpsim::build_task_graph(s, layout, hcpsim::graph_options_from(s));
  const auto t1 = std::chrono::steady_clock::now();
  const double rss_graph_mb = hcpsim::peak_rss_mib(hcpsim::Usage::Self);
  const hcpsim::CostModel cost(s);
  hcpsim::BackendRegistry reg;
  hcpsim::sim::register_simgrid_backend(reg);
  auto backend = reg.create("simgrid");
  CountingSink sink;
  hcpsim::RunContext ctx{s, layout, cost, {}};
  const double cpu0 = hcpsim::cpu_time_s(hcpsim::Usage::Self);
  backend->run(g, ctx, sink);
  const auto t2 = std::chrono::steady_clock::now();
  const double cpu = hcpsim::cpu_time_s(hcpsim::Usage::Self) - cpu0 + hcpsim::cpu_time_s(hcpsim::Usage::Children);
  const double wall = std::chrono::duration<double>(t2 - t1).count();
  const double parent_mb = hcpsim::peak_rss_mib(hcpsim::Usage::Self), child_mb = hcpsim::peak_rss_mib(hcpsim::Usage::Children);
  std::printf("a2a+p2p [%d,%d] ranks=%d layers=%d %s tasks=%zu events=%zu makespan_s=%.6f\n", a2a, ring, cp, layers,
              backward ? "fwd+bwd" : "fwd", g.size(), sink.events, sink.makespan_s);
  std::printf("graph_build_wall_s=%.2f rss_after_graph_mb=%.1f simulate_wall_s=%.2f simulate_cpu_s=%.2f "
              "cpu_us_per_task=%.2f parent_peak_rss_mb=%.1f child_peak_rss_mb=%.1f\n",
              std::chrono::duration<double>(t1 - t0).count(), rss_graph_mb, wall, cpu,
              1e6 * cpu / static_cast<double>(g.size()), parent_mb, child_mb);
  bool ok = true;
  if (max_wall_s > 0 && wall > max_wall_s) ok = false, std::printf("FAIL: wall %.2f s > %.2f s\n", wall, max_wall_s);
  if (max_cpu_s > 0 && cpu > max_cpu_s) ok = false, std::printf("FAIL: cpu %.2f s > %.2f s\n", cpu, max_cpu_s);
  if (max_rss_mb > 0 && (parent_mb > max_rss_mb || child_mb > max_rss_mb))
    ok = false, std::printf("FAIL: peak RSS above %.0f MB\n", max_rss_mb);
  return ok ? 0 : 1;
}
