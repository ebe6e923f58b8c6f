// hcpsim graph FILE [k=v...]: the task graph of a scenario as text (teaching), DOT or JSON.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/arg_checks.h"
#include "cli/commands.h"
#include "cli/scenario_args.h"
#include "cli/verbosity.h"
#include "engine/app/help_footer.h"
#include "engine/graph/graph_export.h"
#include "engine/schedule/graph_text.h"
#include "engine/layout/rank_layout.h"
#include "engine/schedule/build.h"
#include "engine/validate/feasibility.h"

namespace hcpsim::cli {

namespace {

struct GraphArgs {
  ScenarioArgs scenario;
  int rank = -1;
  int layer = -1;
  std::string pass;
  std::string format = "text";
};

}  // namespace

void add_graph_command(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<GraphArgs>();
  auto* cmd = app.add_subcommand("graph", "Print the per-rank task graph of a scenario (text, dot or json)");
  add_scenario_args(*cmd, args->scenario);
  cmd->add_option("--rank", args->rank, "only this global rank (0 .. world size - 1)")->check(int_range(0, kMaxGpus - 1));
  cmd->add_option("--layer", args->layer, "only this layer (0 .. simulation.layers - 1)")->check(int_range(0, 1 << 30));
  cmd->add_option("--pass", args->pass, "only this pass")->check(CLI::IsMember({"forward", "backward"}));
  cmd->add_option("--format", args->format, "output format")->check(CLI::IsMember({"text", "dot", "json"}));
  cmd->footer(app::format_help_footer(
      {.examples = {{{"hcpsim graph scenarios/llama3-70b-128k-dgx-h100-hcp.yaml --rank 0 --pass forward"}},
                    {{"hcpsim graph scenarios/llama3-70b-128k-dgx-h100-hcp.yaml model.context_parallel_size=4",
                       "\"model.hierarchical_context_parallel_sizes=[2,2]\" cluster.nodes=1 --format dot > g.dot"}},
                    {{"hcpsim graph scenarios/llama3-8b-64k-dgx-h100-p2p.yaml --format json --layer 0 > g.json"}}}}));
  run_with_scenario(*cmd, std::shared_ptr<ScenarioArgs>(args, &args->scenario), ctx.exit_code, [args](const Scenario& s) {
    if (args->rank >= s.world_size()) {
      std::cerr << "hcpsim graph: --rank " << args->rank << " is outside 0.." << s.world_size() - 1 << " (world size "
                << s.world_size() << ")\n";
      return 2;
    }
    if (args->layer >= s.simulation.layers) {
      std::cerr << "hcpsim graph: --layer " << args->layer << " is outside 0.." << s.simulation.layers - 1
                << " (the graph holds simulation.layers = " << s.simulation.layers
                << "; raise it with simulation.layers=N)\n";
      return 2;
    }
    try {
      require_buildable_graph(s, "hcpsim graph builds every rank; show a smaller job (fewer GPUs or layers)");
    } catch (const std::invalid_argument& e) {
      std::cerr << args->scenario.file << ": error: " << e.what() << '\n';
      return 1;
    }
    const RankLayout layout = RankLayout::from_scenario(s);
    GraphOptions opt = graph_options_from(s);
    const TaskGraph g = build_task_graph(s, layout, opt);
    GraphFilter f;
    f.rank = args->rank;
    f.layer = args->layer;
    if (!args->pass.empty()) f.pass = args->pass == "forward" ? Pass::Forward : Pass::Backward;
    if (args->format == "json") {
      write_graph_json(g, f, std::cout);
    } else if (args->format == "dot") {
      write_graph_dot(g, f, std::cout);
    } else {
      if (f.rank < 0 && layout.world_size() > 8 && !quiet()) {
        std::cerr << "hcpsim graph: " << layout.world_size() << " ranks; showing rank 0 (use --rank R)\n";
        f.rank = 0;
      }
      std::cout << "scenario " << s.display_name() << ": " << g.size() << " tasks, " << g.edge_count() << " dependencies, "
                << layout.world_size() << " ranks\n";
      write_graph_text(g, s, f, std::cout);
    }
    return 0;
  });
}

}  // namespace hcpsim::cli
