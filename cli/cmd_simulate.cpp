// hcpsim simulate FILE [k=v...] [--backend NAME] [--format text|json|csv] [--trace out.json[.gz]]
//                 [--step-trace step.json[.gz]]
//                 [--trace-ranks 0,5-7] [--trace-layers 0] [--explain-route A B]
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/arg_checks.h"
#include "cli/commands.h"
#include "engine/app/help_footer.h"
#include "engine/core/internal_error.h"
#include "cli/scenario_args.h"
#include "cli/verbosity.h"
#include "cli/trace_file.h"
#include "engine/app/prediction.h"
#include "engine/app/step_trace.h"
#include "engine/cost/route.h"
#include "engine/trace/trace_filter.h"
#include "engine/trace/trace_output.h"
#ifdef HCPSIM_HAVE_SIMGRID
#include "sim/simgrid_backend.h"
#endif

namespace hcpsim::cli {
namespace {

struct SimulateArgs {
  ScenarioArgs scenario;
  std::string backend;   // empty: scenario.simulation.backend
  std::string format = "text";
  std::string trace_path;
  std::string step_trace_path;   // the whole training step's events (app::predict_step_trace)
  std::string trace_ranks, trace_layers;   // empty: all
  std::vector<int> explain_route;
};

void print_route(const Scenario& s, int a, int b) {
  const CostModel cost(s);
  const RouteModel routes(s, cost);
  const Route r = routes.route(a, b);
  std::cout << "route " << a << " -> " << b << " (analytic model)\n";
  if (r.self) {
    std::cout << "  same GPU: no link, no cost\n";
  } else if (r.link_class == LinkClass::IntraNode) {
    std::cout << "  node " << r.src_node << ": NVSwitch port of GPU " << a % s.cluster.gpus_per_node << " -> port of GPU "
              << b % s.cluster.gpus_per_node << ", " << r.bottleneck_Bps / 1e9 << " GB/s, latency " << r.latency_s * 1e6
              << " us\n";
  } else {
    std::cout << "  NIC " << r.src_nic << " of node " << r.src_node << " -> fabric -> NIC " << r.dst_nic << " of node "
              << r.dst_node << ", bottleneck " << r.bottleneck_Bps / 1e9 << " GB/s, latency " << r.latency_s * 1e6
              << " us\n";
  }
#ifdef HCPSIM_HAVE_SIMGRID
  std::cout << "SimGrid platform:\n" << sim::explain_route(s, a, b);
#endif
}

int run(const SimulateArgs& args) {
  if (!args.backend.empty() && !check_backend_option("simulate", args.backend)) return 2;
  int code = 0;
  auto loaded = load_for_command(args.scenario.file, args.scenario.overrides, code, args.backend, true);
  if (!loaded) return code;
  const Scenario& s = *loaded;
  try {
    if (!args.explain_route.empty()) {
      const int a = args.explain_route[0], b = args.explain_route[1];
      if (a < 0 || b < 0 || a >= s.world_size() || b >= s.world_size()) {
        std::cerr << "hcpsim simulate: error: --explain-route: ranks must be in 0.." << s.world_size() - 1 << '\n';
        return 1;
      }
      print_route(s, a, b);
      return 0;
    }
    SimulateOptions opt;
    opt.keep_events = false;   // the report needs only the task times; a trace file is streamed
    // A trace of every rank is written unfolded: its task ids are the whole graph's, as `hcpsim run`
    // writes them, so `hcpsim compare` matches it task by task. With --trace-ranks the run is folded
    // and the chosen ranks are copied from their replica (docs/metrics.md "Trace files").
    opt.replicas_once = args.trace_path.empty() || !args.trace_ranks.empty();
    opt.unfold_reason = "a trace of every rank (--trace without --trace-ranks) is written from the whole graph";
    opt.trace_path = args.trace_path;
    try {
      if (!args.trace_ranks.empty()) {
        opt.trace_filter.ranks = parse_index_ranges(args.trace_ranks, "--trace-ranks");
        require_below(opt.trace_filter.ranks, s.world_size(), "--trace-ranks", "ranks");
      }
      if (!args.trace_layers.empty()) {
        opt.trace_filter.layers = parse_index_ranges(args.trace_layers, "--trace-layers");
        require_below(opt.trace_filter.layers, s.simulation.layers, "--trace-layers", "layers (simulation.layers)");
      }
    } catch (const std::invalid_argument& e) {
      std::cerr << "hcpsim simulate: error: " << e.what() << '\n';
      return 2;
    }
    const FoldPlan fold = plan_simulation(s, opt);
    if (fold.unit_ranks_if_allowed > 0 && !quiet())
      std::cerr << "hcpsim simulate: note: --trace without --trace-ranks simulates all " << fold.represented_ranks
                << " GPUs (folded: " << fold.unit_ranks_if_allowed << "); --trace-ranks keeps the run folded\n";
    opt.progress = [](std::size_t done, std::size_t total, double t) {
      if (total >= 200000 && !quiet()) std::cerr << "simulate: " << done << "/" << total << " tasks, simulated time " << t << " s\n";
    };
    if (verbose())
      opt.stage_done = [](const char* stage, double wall_s) {
        std::cerr << "  time: " << stage << ' ' << wall_s << " s\n";
      };
    SimulationResult r;
    try {
      r = app::predict(s, fold, args.backend, opt);
    } catch (const TraceWriteError& e) {
      std::cerr << "hcpsim simulate: error: --trace: " << e.what() << '\n';
      return 1;
    }
    if (verbose()) {
      std::cerr << "efficiency sources (value used, where it came from):\n";
      for (const EfficiencySource& e : r.report.efficiency_sources) std::cerr << "  " << describe(e) << '\n';
    }
    if (!args.step_trace_path.empty() &&
        !write_trace_file(app::predict_step_trace(s, args.backend), args.step_trace_path, "simulate", "--step-trace"))
      return 1;
    if (args.format == "json") std::cout << report_to_json(r.report);
    else if (args.format == "csv") std::cout << report_to_csv(r.report);
    else std::cout << report_to_text(r.report);
    return 0;
  } catch (const InternalError&) {
    throw;   // exit 3 in main
  } catch (const std::exception& e) {
    std::cerr << args.scenario.file << ": error: " << e.what() << '\n';
    return 1;
  }
}

}  // namespace

void add_simulate_command(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<SimulateArgs>();
  auto* cmd = app.add_subcommand("simulate", "predict attention, layer and step time of a scenario");
  add_scenario_args(*cmd, args->scenario);
  cmd->add_option("--backend", args->backend,
                  "timing backend (default: the scenario's simulation.backend); valid names depend on the build")
      ->check(non_empty("--backend: the backend name"));
  cmd->add_option("--format", args->format, "report format")->check(CLI::IsMember({"text", "json", "csv"}));
  auto* trace = cmd->add_option("--trace", args->trace_path,
                                "also write a Chrome-trace/Perfetto JSON file (gzip-compressed when FILE ends in .gz)")
                    ->check(non_empty("--trace: the file name"));
  cmd->add_option("--step-trace", args->step_trace_path,
                  "also write the whole training step as a Chrome trace: every pipeline stage and micro-batch, P2P, "
                  "DP reduce-scatter / all-gather and the optimizer, first DP replica and TP rank (small scenarios: "
                  "the step graph has a size limit)")
      ->check(non_empty("--step-trace: the file name"));
  cmd->add_option("--trace-ranks", args->trace_ranks,
                  "ranks the trace file keeps, e.g. 0,5-7 (default: all, which simulates every rank; with this "
                  "option a job of identical replicas stays folded, docs/scenario.md)")
      ->needs(trace)
      ->check(non_empty("--trace-ranks: the list of ranks"));
  cmd->add_option("--trace-layers", args->trace_layers,
                  "simulated layers the trace file keeps, e.g. 0 or 0-1 (default: all)")
      ->needs(trace)
      ->check(non_empty("--trace-layers: the list of layers"));
  cmd->add_option("--explain-route", args->explain_route, "print the links between global ranks A and B, then exit")
      ->expected(2)
      ->check(int_range(0, kMaxGpus - 1));
  cmd->footer(app::format_help_footer(
      {.examples = {{{"hcpsim simulate scenarios/llama3-70b-128k-dgx-h100-hcp.yaml --backend analytic"}},
                    {{"hcpsim simulate scenarios/llama3-70b-128k-dgx-h100-hcp.yaml model.tensor_model_parallel_size=1",
                       "\"model.hierarchical_context_parallel_sizes=[8,2]\" cluster.nodes=2 --format json"}},
                    {{"hcpsim simulate scenarios/llama3-70b-128k-dgx-h100-hcp.yaml --trace trace.json"}, "open in ui.perfetto.dev"},
                    {{"hcpsim simulate scenarios/llama3-70b-128k-dgx-h100-hcp.yaml --explain-route 0 8"}}}}));
  cmd->callback([args, &ctx]() { ctx.exit_code = run(*args); });
}

}  // namespace hcpsim::cli
