// hcpsim layout FILE [k=v...] [--format text|json]: Megatron's process groups and their placement.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/scenario_args.h"
#include "engine/app/help_footer.h"
#include "engine/layout/layout_format.h"
#include "engine/layout/rank_layout.h"

namespace hcpsim::cli {

void add_layout_command(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<ScenarioArgs>();
  auto format = std::make_shared<std::string>("text");
  auto* cmd = app.add_subcommand("layout", "print Megatron's rank groups (TP/CP/DP/PP/HCP) and the node map");
  add_scenario_args(*cmd, *args);
  cmd->add_option("--format", *format, "text (default) or json (the contract in docs/architecture.md \"Contracts\")")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->footer(app::format_help_footer(
      {.examples = {{{"hcpsim layout scenarios/llama3-70b-128k-dgx-h100-hcp.yaml"}},
                    {{"hcpsim layout scenarios/llama3-70b-128k-dgx-h100-hcp.yaml --format json"}},
                    {{"hcpsim layout scenarios/llama3-70b-128k-dgx-h100-hcp.yaml cluster.nodes=2",
                       "model.context_parallel_size=8 \"model.hierarchical_context_parallel_sizes=[2,4]\""}}}}));
  run_with_scenario(*cmd, args, ctx.exit_code, [args, format](const Scenario& s) {
    try {
      const RankLayout L = RankLayout::from_scenario(s);
      std::cout << (*format == "json" ? layout_to_json(L) + "\n" : layout_to_text(L));
      return 0;
    } catch (const std::exception& e) {
      std::cerr << args->file << ": error: " << e.what() << '\n';
      return 1;
    }
  });
}

}  // namespace hcpsim::cli
