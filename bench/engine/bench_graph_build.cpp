// Task-graph build speed and memory (target: the 1,024-rank a2a+p2p graph, [8,128],
// 4 layers, forward, builds in well under 1 s and < 200 MB). Run:
//   bench_graph_build --benchmark_filter=Hcp1024
// Counters: tasks, edges, rss_MB (resident-set growth while the graph is alive).
#include <benchmark/benchmark.h>

#include <fstream>
#include <unistd.h>

#include "bench/engine/bench_scenario.h"
#include "engine/layout/rank_layout.h"
#include "engine/schedule/build.h"

namespace {

double rss_mb() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1e6;
}

void run(benchmark::State& state, const hcpsim::Scenario& s) {
  const auto layout = hcpsim::RankLayout::from_scenario(s);
  hcpsim::GraphOptions o;
  o.forward = true;
  o.backward = false;
  o.layers = 4;
  double tasks = 0, edges = 0, rss = 0;
  for (auto _ : state) {
    const double before = rss_mb();
    const hcpsim::TaskGraph g = hcpsim::build_task_graph(s, layout, o);
    rss = rss_mb() - before;
    tasks = static_cast<double>(g.size());
    edges = static_cast<double>(g.edge_count());
    benchmark::DoNotOptimize(g.size());
  }
  state.counters["tasks"] = tasks;
  state.counters["edges"] = edges;
  state.counters["rss_MB"] = rss;
}

void Hcp1024(benchmark::State& st) { run(st, hcpsim::bench::bench_scenario(1024, {8, 128}, "a2a+p2p")); }
void P2p64(benchmark::State& st) { run(st, hcpsim::bench::bench_scenario(64, {}, "p2p")); }

}  // namespace

BENCHMARK(Hcp1024)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(P2p64)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
