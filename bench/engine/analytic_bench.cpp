// Speed and memory of the analytic backend on the target: a 1,024-rank a2a+p2p graph
// ([8,128], 4 layers, forward), graph build included. Target: < 1 s and < 200 MB peak RSS.
//   hcpsim_bench_analytic                      Google Benchmark timings
//   hcpsim_bench_analytic --peak-rss           one build+run, then prints seconds and peak RSS (getrusage)
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "bench/engine/bench_scenario.h"
#include "engine/analytic/analytic_backend.h"
#include "engine/core/process_memory.h"
#include "engine/schedule/build.h"

namespace {

using namespace hcpsim;

Scenario target_scenario() {
  Scenario s = bench::bench_scenario(1024, {8, 128}, "a2a+p2p");
  s.name = "bench-1024-a2a-p2p";
  s.model.num_layers = 80;
  s.simulation.backward = false;
  return s;
}

// Keeps only what a sweep needs: the makespan.
struct MakespanSink : TraceSink {
  double end_s = 0;
  std::size_t events = 0;
  void record(const TraceEvent& e) override {
    end_s = std::max(end_s, e.end_s);
    ++events;
  }
  void record_task(const TaskGraph&, const Task&, double, double end) override {
    end_s = std::max(end_s, end);
    ++events;
  }
};

std::size_t g_edges = 0;
double g_build_s = 0, g_run_s = 0, g_build_cpu_s = 0, g_run_cpu_s = 0, g_build_rss_mb = 0;

double build_and_run(const Scenario& s, std::size_t* tasks) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  const RankLayout layout = RankLayout::from_scenario(s);
  const TaskGraph g = build_task_graph(s, layout, graph_options_from(s));
  g_edges = g.edge_count();   // forces the CSR adjacency: part of the build, not of the run
  const auto t1 = std::chrono::steady_clock::now();
  const std::clock_t c1 = std::clock();
  g_build_s = std::chrono::duration<double>(t1 - t0).count();
  g_build_cpu_s = static_cast<double>(c1 - c0) / CLOCKS_PER_SEC;
  g_build_rss_mb = peak_rss_mib(Usage::Self);
  const CostModel cost(s);
  RunContext ctx{s, layout, cost, {}};
  MakespanSink sink;
  AnalyticBackend().run(g, ctx, sink);
  g_run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  g_run_cpu_s = static_cast<double>(std::clock() - c1) / CLOCKS_PER_SEC;
  if (tasks) *tasks = g.size();
  return sink.end_s;
}

void BM_Analytic1024A2aP2pForward4Layers(benchmark::State& state) {
  const Scenario s = target_scenario();
  std::size_t tasks = 0;
  for (auto _ : state) benchmark::DoNotOptimize(build_and_run(s, &tasks));
  state.counters["tasks"] = static_cast<double>(tasks);
}
BENCHMARK(BM_Analytic1024A2aP2pForward4Layers)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--peak-rss") == 0) {
    const auto t0 = std::chrono::steady_clock::now();
    std::size_t tasks = 0;
    const double makespan = build_and_run(target_scenario(), &tasks);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double peak = peak_rss_mib(Usage::Self);
    std::printf("allocator %s\n", allocator_name());
    std::printf("tasks %zu, edges %zu, simulated %.6f s\n", tasks, g_edges, makespan);
    std::printf("wall %.3f s (target < 1 s): graph build %.3f s (cpu %.3f s), analytic run %.3f s (cpu %.3f s)\n",
                wall, g_build_s, g_build_cpu_s, g_run_s, g_run_cpu_s);
    std::printf("peak RSS %.1f MB (target < 200 MB): %.1f MB after the graph build\n", peak, g_build_rss_mb);
    return wall < 1.0 && peak < 200.0 ? 0 : 1;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
